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
 * Resolves a command name the way a shell would (PATH), then in the console's `node_modules/.bin`.
 * A name with a slash is resolved against `cwd`. Returns undefined when nothing executable exists.
 */
export function resolveCommand(
  name: string,
  opts: { cwd?: string; pathEnv?: string; extraDirs?: string[] } = {},
): string | undefined {
  if (!name) return undefined;
  if (name.includes("/")) {
    const abs = path.resolve(opts.cwd ?? process.cwd(), name);
    return isExecutable(abs) ? abs : undefined;
  }
  const dirs = [
    ...(opts.pathEnv ?? process.env.PATH ?? "").split(path.delimiter).filter(Boolean),
    ...(opts.extraDirs ?? [projectBinDir()]),
  ];
  for (const dir of dirs) {
    const candidate = path.join(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}
