import "server-only";
import fs from "node:fs";
import path from "node:path";

/** The console's own `node_modules/.bin`, searched after PATH (agents installed as npm packages). */
export function projectBinDir(): string {
  return path.join(process.cwd(), "node_modules", ".bin");
}

function isExecutable(file: string): boolean {
  try {
    const st = fs.statSync(file);
    if (!st.isFile()) return false;
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * `node_modules/.bin` folders of the console's directory and its parents: `npm start` puts them at
 * the front of PATH, where they would shadow what the user installed. They are searched last.
 */
function consoleBinDirs(): Set<string> {
  const dirs = new Set<string>();
  for (let d = process.cwd(); ; d = path.dirname(d)) {
    dirs.add(path.join(d, "node_modules", ".bin"));
    if (path.dirname(d) === d) break;
  }
  return dirs;
}

/** Where a command was found, and whether that is the console's bundled copy. */
export interface LocatedCommand {
  path: string;
  /** Found only in the console's own `node_modules/.bin` (the copy its tests use), not on the user's PATH. */
  bundled: boolean;
}

/**
 * Resolves a command name the way a shell would (the user's PATH, without the console's own
 * `node_modules/.bin` that `npm start` adds), then in the console's `node_modules/.bin` as a
 * fallback. A name with a slash is resolved against `cwd`. Undefined when nothing executable exists.
 */
export function locateCommand(
  name: string,
  opts: { cwd?: string; pathEnv?: string; extraDirs?: string[] } = {},
): LocatedCommand | undefined {
  if (!name) return undefined;
  if (name.includes("/")) {
    const abs = path.resolve(opts.cwd ?? process.cwd(), name);
    return isExecutable(abs) ? { path: abs, bundled: false } : undefined;
  }
  const own = consoleBinDirs();
  const userDirs = (opts.pathEnv ?? process.env.PATH ?? "")
    .split(path.delimiter)
    .filter((d) => d && !own.has(path.resolve(d)));
  for (const dir of userDirs) {
    const candidate = path.join(dir, name);
    if (isExecutable(candidate)) return { path: candidate, bundled: false };
  }
  for (const dir of opts.extraDirs ?? [projectBinDir()]) {
    const candidate = path.join(dir, name);
    if (isExecutable(candidate)) return { path: candidate, bundled: true };
  }
  return undefined;
}

/** `locateCommand`'s path alone. */
export function resolveCommand(
  name: string,
  opts: { cwd?: string; pathEnv?: string; extraDirs?: string[] } = {},
): string | undefined {
  return locateCommand(name, opts)?.path;
}

/**
 * The version of an installed command when it is an npm package's bin (the nearest `package.json`
 * above the file the link points at, at most four folders up). Never runs the command.
 */
export function packageVersionOf(file: string): string | undefined {
  let dir: string;
  try {
    dir = path.dirname(fs.realpathSync(file));
  } catch {
    return undefined;
  }
  for (let i = 0; i < 4; i++, dir = path.dirname(dir)) {
    try {
      const pkg = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")) as { version?: unknown };
      if (typeof pkg.version === "string" && pkg.version.length <= 64) return pkg.version;
    } catch {
      // not here: one folder up
    }
  }
  return undefined;
}
