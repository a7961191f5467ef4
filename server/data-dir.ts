import "server-only";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { log } from "./log";

/**
 * Where the console keeps its token file and its store (docs/security.md, "The data folder"):
 * `SWITCHBOARD_DATA_DIR`, else the platform's data directory — never the folder `npm start` runs
 * from, which is also the default workspace, where an agent could read the token.
 */

type Env = Readonly<Record<string, string | undefined>>;

/** The folder the console used before, relative to where it was started. */
export const LEGACY_DATA_DIR = ".switchboard";

/**
 * The platform's data directory for the console: `$XDG_DATA_HOME/switchboard` (else
 * `~/.local/share/switchboard`) on Linux and the BSDs, `~/Library/Application Support/switchboard`
 * on macOS, `%LOCALAPPDATA%\switchboard` (else `%APPDATA%`) on Windows.
 */
export function defaultDataDir(
  env: Env = process.env,
  platform: NodeJS.Platform = process.platform,
  home: string = os.homedir(),
): string {
  if (platform === "win32") {
    const base = env.LOCALAPPDATA || env.APPDATA || path.win32.join(home, "AppData", "Local");
    return path.win32.join(base, "switchboard");
  }
  if (platform === "darwin") return path.posix.join(home, "Library", "Application Support", "switchboard");
  const xdg = env.XDG_DATA_HOME;
  return path.join(xdg && path.isAbsolute(xdg) ? xdg : path.join(home, ".local", "share"), "switchboard");
}

/** The console's data directory (absolute). Pure: nothing is created or moved. */
export function dataDirOf(env: Env = process.env): string {
  return env.SWITCHBOARD_DATA_DIR
    ? path.resolve(/*turbopackIgnore: true*/ env.SWITCHBOARD_DATA_DIR)
    : defaultDataDir(env);
}

export type Migration = { moved: false; reason?: string } | { moved: true; from: string; to: string };

/**
 * A `./.switchboard` left by an older console, with no `SWITCHBOARD_DATA_DIR` set, is moved to
 * the default data directory (once, at start-up, with a log line saying so). When the new place is
 * already in use the old folder is left where it is, and a warning says so.
 */
export function migrateLegacyDataDir(env: Env = process.env, cwd: string = process.cwd()): Migration {
  if (env.SWITCHBOARD_DATA_DIR) return { moved: false };
  const from = path.resolve(/*turbopackIgnore: true*/ cwd, LEGACY_DATA_DIR);
  if (!fs.existsSync(from)) return { moved: false };
  const to = dataDirOf(env);
  if (path.resolve(from) === path.resolve(to)) return { moved: false };
  if (fs.existsSync(to) && fs.readdirSync(to).length > 0) {
    log.warn(
      `found an old data folder at ${from}, but ${to} is already in use: the console uses ${to} and leaves ${from} alone (move what you need, then delete it; it may hold an old console token)`,
    );
    return { moved: false, reason: "target in use" };
  }
  fs.mkdirSync(path.dirname(to), { recursive: true, mode: 0o700 });
  if (fs.existsSync(to)) fs.rmdirSync(to);
  try {
    fs.renameSync(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EXDEV") throw err;
    fs.cpSync(from, to, { recursive: true, preserveTimestamps: true });
    fs.rmSync(from, { recursive: true, force: true });
  }
  fs.chmodSync(to, 0o700);
  log.info(
    `moved the console's data folder from ${from} to ${to} (the workspace is no place for the console token; set SWITCHBOARD_DATA_DIR to choose another)`,
  );
  return { moved: true, from, to };
}

/* --------------------------------------------------------------------------- permissions */

/** The data folder and everything in it are its owner's only (docs/security.md, "The data folder"). */
export const DATA_DIR_MODE = 0o700;
export const DATA_FILE_MODE = 0o600;

/**
 * Creates the data folder (0700) when it is missing, and takes every group and other permission off
 * it and off each entry in it — the SQLite store and its `-wal`/`-shm`, the token file, the
 * logged-out sessions, anything else — so a 0644 file becomes 0600 and a 0755 folder 0700. Symbolic
 * links are not followed, and folders inside it are closed (0700) rather than walked. Returns what it
 * changed: the folder's own path, then entry names. Nothing on Windows (an ACL matter there: the
 * default place, under `%LOCALAPPDATA%`, is the user's own).
 */
export function tightenDataDir(dir: string, platform: NodeJS.Platform = process.platform): string[] {
  if (platform === "win32") return [];
  const changed: string[] = [];
  let names: string[];
  try {
    fs.mkdirSync(dir, { recursive: true, mode: DATA_DIR_MODE });
    if (tighten(dir, fs.statSync(dir).mode)) changed.push(dir);
    names = fs.readdirSync(dir);
  } catch (err) {
    // A folder the console cannot create or read fails later, where it is used, with its own message.
    log.warn(`could not check the permissions of the data folder ${dir}`, {
      error: (err as NodeJS.ErrnoException).code ?? String(err),
    });
    return changed;
  }
  for (const name of names) {
    const p = path.join(dir, name);
    let st: fs.Stats;
    try {
      st = fs.lstatSync(p);
    } catch {
      continue; // gone meanwhile
    }
    if (!st.isFile() && !st.isDirectory()) continue; // symlinks, sockets, fifos: left as they are
    if (tighten(p, st.mode)) changed.push(name);
  }
  return changed;
}

/** Takes the group and other bits off one path; true when it had any. */
function tighten(p: string, mode: number): boolean {
  if ((mode & 0o077) === 0) return false;
  try {
    fs.chmodSync(p, mode & 0o7700);
    return true;
  } catch (err) {
    log.warn(`could not make ${p} private to the console's user`, {
      error: (err as NodeJS.ErrnoException).code ?? String(err),
    });
    return false;
  }
}

/**
 * What the console does with its data folder when it starts, before anything reads the token or
 * opens the store: moves an old `./.switchboard` out of the workspace (`migrateLegacyDataDir`), then
 * makes the folder and what is in it private to its owner (`tightenDataDir`), with one log line
 * naming what had to be tightened. Files created later are created 0600 by whoever creates them (the
 * token file, the logged-out sessions, the SQLite store, whose `-wal`/`-shm` take the store's mode).
 */
export function prepareDataDir(
  env: Env = process.env,
  cwd: string = process.cwd(),
): { migration: Migration; dir: string; tightened: string[] } {
  const migration = migrateLegacyDataDir(env, cwd);
  const dir = dataDirOf(env);
  const tightened = tightenDataDir(dir);
  if (tightened.length)
    log.warn(
      `tightened the permissions of the console's data folder ${dir} (folder 0700, files 0600: only its owner may read them): ${tightened.map((t) => (t === dir ? "the folder itself" : t)).join(", ")}`,
    );
  return { migration, dir, tightened };
}
