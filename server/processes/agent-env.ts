import "server-only";
import { log } from "../log";

/**
 * The environment an agent runs with (docs/security.md, "What an agent's environment holds"). An
 * agent runs whatever a prompt — or a prompt injection in a file it reads — asks of it, `env`
 * included, so it never inherits the console's whole environment:
 *
 * - the basics from the console's environment (`BASE_ENV_NAMES`, `LC_*`, `XDG_*`);
 * - the names listed in `SWITCHBOARD_PASS_ENV` (every agent) — a backend's own `passEnv` is read
 *   into its `env` when it is created (server/backends/shared/kind.ts);
 * - what the backend's own config sets (`env`), over the rest;
 * - never a `SWITCHBOARD_*` variable, and never an inherited variable whose value is a secret the
 *   console holds for something else (its token, another backend's password) — see `withholdFromAgents`.
 *   (`SWITCHBOARD_TOKEN` is also deleted from `process.env` once read: server/auth/token.ts.)
 *
 * What an agent can reach besides its environment, and the sandbox and agent-user settings that
 * narrow it, are in ./sandbox.ts and ./agent-user.ts (docs/security.md, "What an agent can reach").
 */

/** Variables every agent gets from the console's environment, when set. */
export const BASE_ENV_NAMES: readonly string[] = [
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "LANG",
  "LANGUAGE",
  "TERM",
  "COLORTERM",
  "TZ",
  "TMPDIR",
  "TMP",
  "TEMP",
  // proxies and the certificates a proxy needs
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
  "ALL_PROXY",
  "http_proxy",
  "https_proxy",
  "no_proxy",
  "all_proxy",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "NODE_EXTRA_CA_CERTS",
  // Windows: what a process needs to start, find its profile and its temp folder
  "SYSTEMROOT",
  "SYSTEMDRIVE",
  "WINDIR",
  "COMSPEC",
  "PATHEXT",
  "USERPROFILE",
  "USERNAME",
  "APPDATA",
  "LOCALAPPDATA",
  "PROGRAMDATA",
  "PROGRAMFILES",
  "PROGRAMFILES(X86)",
  "HOMEDRIVE",
  "HOMEPATH",
  "NUMBER_OF_PROCESSORS",
  "PROCESSOR_ARCHITECTURE",
  "OS",
];
/** Prefixes of variables every agent gets (locale, XDG base directories). */
export const BASE_ENV_PREFIXES: readonly string[] = ["LC_", "XDG_"];

/** The console's own variables: never passed to an agent, whatever a config says. */
export const CONSOLE_ENV_PREFIX = "SWITCHBOARD_";
/**
 * Credentials of the backend `OPENCODE_BASE_URL` names: the console's, not an agent's. The embedded
 * OpenCode gets its own pair (server/processes/opencode-serve.ts).
 */
export const CONSOLE_CREDENTIAL_NAMES: readonly string[] = ["OPENCODE_SERVER_PASSWORD", "OPENCODE_SERVER_USERNAME"];

/** A name `passEnv` may not list: the console's own variables and credentials. */
export function unpassableName(name: string): boolean {
  const n = name.toUpperCase();
  return n.startsWith(CONSOLE_ENV_PREFIX) || CONSOLE_CREDENTIAL_NAMES.includes(n);
}

const windows = process.platform === "win32";
const baseNames = new Set(BASE_ENV_NAMES.map((n) => (windows ? n.toUpperCase() : n)));

export function isBaseName(name: string): boolean {
  const n = windows ? name.toUpperCase() : name;
  return baseNames.has(n) || BASE_ENV_PREFIXES.some((p) => n.startsWith(p));
}

/** `SWITCHBOARD_PASS_ENV`: names, separated by commas, spaces or colons. */
export function parsePassEnv(value: string | undefined): string[] {
  return (value ?? "")
    .split(/[\s,:;]+/)
    .map((s) => s.trim())
    .filter((s) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(s) && !unpassableName(s));
}

/* ------------------------------------------------------------------------ withheld values */

const g = globalThis as typeof globalThis & { __switchboardWithheld?: Set<string> };
const withheld = (g.__switchboardWithheld ??= new Set<string>());

/**
 * A secret the console holds for itself or for one backend (the console token, a backend's password
 * or key): no agent inherits a variable with this value from the console's environment.
 */
export function withholdFromAgents(value: string | undefined): void {
  if (value && value.length >= 8) withheld.add(value);
}

export interface AgentEnvOptions {
  /** The console's environment (default `process.env`). */
  parent?: Readonly<Record<string, string | undefined>>;
  /** What the backend's own config sets (its `env`, with its `passEnv` read in): applied last. */
  own?: Readonly<Record<string, string>>;
  /** For logs. */
  name?: string;
}

/** The whole environment of an agent process (see the top of this file). */
export function agentEnvironment(opts: AgentEnvOptions = {}): Record<string, string> {
  const parent = opts.parent ?? process.env;
  const passed = new Set(parsePassEnv(parent.SWITCHBOARD_PASS_ENV));
  const out: Record<string, string> = {};
  const dropped: string[] = [];
  for (const [k, v] of Object.entries(parent)) {
    if (v === undefined || unpassableName(k)) continue;
    if (!isBaseName(k) && !passed.has(k)) continue;
    if (withheld.has(v)) {
      dropped.push(k);
      continue;
    }
    out[k] = v;
  }
  for (const [k, v] of Object.entries(opts.own ?? {})) {
    if (k.toUpperCase().startsWith(CONSOLE_ENV_PREFIX)) {
      dropped.push(k);
      continue;
    }
    out[k] = v;
  }
  if (dropped.length)
    log.warn("not passing variables that hold the console's own secrets to an agent", {
      name: opts.name,
      variables: dropped,
    });
  return out;
}

/**
 * The values of `names` in the console's environment, for a backend's `passEnv` (names the console
 * may not pass, and values it withholds, are skipped).
 */
export function passThrough(
  names: readonly string[] | undefined,
  parent: Readonly<Record<string, string | undefined>> = process.env,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const n of names ?? []) {
    const v = parent[n];
    if (v !== undefined && !unpassableName(n) && !withheld.has(v)) out[n] = v;
  }
  return out;
}
