import "server-only";
import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { dataDirOf } from "../data-dir";
import { withholdFromAgents } from "../processes/agent-env";

/** The file in the data directory that holds a generated console token (mode 0600). */
export const TOKEN_FILE = "console-token";

/** 32 random bytes = 256 bits, base64url (43 characters). */
const TOKEN_BYTES = 32;
/** A token shorter than this is refused: it could be guessed. */
export const MIN_TOKEN_LENGTH = 16;

export interface ConsoleToken {
  token: string;
  /** `env`: the operator's (`SWITCHBOARD_TOKEN`, or the file `SWITCHBOARD_TOKEN_FILE` names). */
  source: "env" | "file" | "generated";
  /**
   * The file the token was read from: the one `SWITCHBOARD_TOKEN_FILE` names, or where a generated
   * token is kept (absent when it comes from `SWITCHBOARD_TOKEN`).
   */
  file?: string;
}

export function generateToken(): string {
  return randomBytes(TOKEN_BYTES).toString("base64url");
}

export { dataDirOf } from "../data-dir";

type Env = Readonly<Record<string, string | undefined>>;

/** `SWITCHBOARD_TOKEN`, once read from `process.env` and taken out of it (see `resolveConsoleToken`). */
const g = globalThis as typeof globalThis & { __switchboardEnvToken?: ConsoleToken };

/**
 * The console token: `SWITCHBOARD_TOKEN`, else the file `SWITCHBOARD_TOKEN_FILE` names (read at
 * start: a systemd credential, a secret mounted by a container runtime), else the one stored in the
 * data directory, else a new one generated now and stored there (created exclusively, mode 0600, so
 * two processes starting at once agree on one token).
 *
 * Read from the console's own environment, `SWITCHBOARD_TOKEN` is then deleted from `process.env`,
 * so no process the console starts inherits it; the token is also withheld from agents under any
 * other name (./../processes/agent-env.ts). The kernel's copy of the environment the console was
 * started with (`/proc/<pid>/environ` on Linux) keeps it: docs/security.md, "What an agent can reach".
 */
export function resolveConsoleToken(env: Env = process.env): ConsoleToken {
  const resolved = resolve(env);
  withholdFromAgents(resolved.token);
  return resolved;
}

function resolve(env: Env): ConsoleToken {
  const own = env === process.env;
  const fromEnv = env.SWITCHBOARD_TOKEN?.trim();
  const fromFile = env.SWITCHBOARD_TOKEN_FILE?.trim();
  if (fromEnv && fromFile) throw new Error("set one of SWITCHBOARD_TOKEN and SWITCHBOARD_TOKEN_FILE, not both");
  if (fromEnv) {
    if (fromEnv.length < MIN_TOKEN_LENGTH)
      throw new Error(`SWITCHBOARD_TOKEN must be at least ${MIN_TOKEN_LENGTH} characters`);
    const t: ConsoleToken = { token: fromEnv, source: "env" };
    if (own) {
      g.__switchboardEnvToken = t;
      delete process.env.SWITCHBOARD_TOKEN;
    }
    return t;
  }
  if (own && g.__switchboardEnvToken) return g.__switchboardEnvToken;
  if (fromFile) {
    const file = path.resolve(/*turbopackIgnore: true*/ fromFile);
    let text: string;
    try {
      text = fs.readFileSync(/*turbopackIgnore: true*/ file, "utf8");
    } catch (err) {
      throw new Error(
        `cannot read SWITCHBOARD_TOKEN_FILE ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`,
      );
    }
    const token = text.trim();
    if (token.length < MIN_TOKEN_LENGTH)
      throw new Error(`the token in SWITCHBOARD_TOKEN_FILE must be at least ${MIN_TOKEN_LENGTH} characters`);
    return { token, source: "env", file };
  }
  const dir = dataDirOf(env);
  const file = path.join(dir, TOKEN_FILE);
  const existing = readTokenFile(file);
  if (existing) return { token: existing, source: "file", file };
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const token = generateToken();
  try {
    fs.writeFileSync(file, `${token}\n`, { flag: "wx", mode: 0o600 });
    return { token, source: "generated", file };
  } catch (err) {
    // Another process created it first: use theirs.
    const raced = (err as NodeJS.ErrnoException).code === "EEXIST" ? readTokenFile(file) : undefined;
    if (raced) return { token: raced, source: "file", file };
    throw err;
  }
}

function readTokenFile(file: string): string | undefined {
  try {
    const t = fs.readFileSync(file, "utf8").trim();
    return t.length >= MIN_TOKEN_LENGTH ? t : undefined;
  } catch {
    return undefined;
  }
}

/** Constant-time comparison of two secrets of any length (compares their SHA-256 digests). */
export function safeEqual(a: string, b: string): boolean {
  const da = createHash("sha256").update(a, "utf8").digest();
  const db = createHash("sha256").update(b, "utf8").digest();
  return timingSafeEqual(da, db);
}

/** The key that signs session cookies, derived from the token: a new token logs everyone out. */
export function deriveCookieKey(token: string): Buffer {
  return createHmac("sha256", token).update("switchboard/session-cookie/v1").digest();
}
