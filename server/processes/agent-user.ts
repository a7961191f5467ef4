import "server-only";
import { spawnSync } from "node:child_process";
import fs from "node:fs";

/**
 * `SWITCHBOARD_AGENT_USER`: agents run as another user than the console (docs/security.md, "What an
 * agent can reach"). The console must run as root to start them so; then an agent cannot read the
 * console's data folder (0700, the console's) nor `/proc/<console pid>/environ` or `mem` (another
 * user's process). The value is a user name or uid, looked up with `getent passwd` (else
 * `/etc/passwd`), or `uid:gid`.
 */

type Env = Readonly<Record<string, string | undefined>>;

export interface AgentUser {
  name: string;
  uid: number;
  gid: number;
  /** The user's home, when known: the agent's `HOME`. */
  home?: string;
}

/** One `/etc/passwd` line (`name:x:uid:gid:gecos:home:shell`), or undefined when it is not one. */
export function parsePasswdLine(line: string): AgentUser | undefined {
  const f = line.trim().split(":");
  if (f.length < 7 || !f[0] || !/^\d+$/.test(f[2] ?? "") || !/^\d+$/.test(f[3] ?? "")) return undefined;
  return { name: f[0], uid: Number(f[2]), gid: Number(f[3]), ...(f[5] ? { home: f[5] } : {}) };
}

/** A user by name or uid: `getent passwd` (NSS: LDAP, sssd …), else `/etc/passwd`. */
export function lookupUser(nameOrUid: string): AgentUser | undefined {
  try {
    const r = spawnSync("getent", ["passwd", nameOrUid], { encoding: "utf8", timeout: 5000 });
    if (r.status === 0) {
      const u = parsePasswdLine(r.stdout.split("\n")[0] ?? "");
      if (u) return u;
    }
  } catch {
    // no getent: read the file
  }
  try {
    for (const line of fs.readFileSync(/*turbopackIgnore: true*/ "/etc/passwd", "utf8").split("\n")) {
      const u = parsePasswdLine(line);
      if (u && (u.name === nameOrUid || String(u.uid) === nameOrUid)) return u;
    }
  } catch {
    // no passwd file
  }
  return undefined;
}

/**
 * The user agents run as, or undefined when `SWITCHBOARD_AGENT_USER` is unset. Throws, with a
 * sentence, when it is set and cannot be honoured (not root, unknown user, Windows, or root itself):
 * an agent never runs as the console's user by surprise.
 */
export function agentUserOf(
  env: Env = process.env,
  opts: { uid?: number | undefined; platform?: NodeJS.Platform; lookup?: (u: string) => AgentUser | undefined } = {},
): AgentUser | undefined {
  const value = env.SWITCHBOARD_AGENT_USER?.trim();
  if (!value) return undefined;
  if ((opts.platform ?? process.platform) === "win32")
    throw new Error("SWITCHBOARD_AGENT_USER is not supported on Windows");
  const self = "uid" in opts ? opts.uid : process.getuid?.();
  if (self !== 0)
    throw new Error(
      "SWITCHBOARD_AGENT_USER needs the console to run as root (only root can start another user's process)",
    );
  const pair = /^(\d+):(\d+)$/.exec(value);
  const user = pair ? { name: value, uid: Number(pair[1]), gid: Number(pair[2]) } : (opts.lookup ?? lookupUser)(value);
  if (!user) throw new Error(`SWITCHBOARD_AGENT_USER: no user ${JSON.stringify(value.slice(0, 64))}`);
  if (user.uid === 0) throw new Error("SWITCHBOARD_AGENT_USER must not be root");
  return user;
}

/**
 * The agent's `HOME`, `USER` and `LOGNAME` for `user`, over its environment, except the ones its
 * backend's own config sets (`own`).
 */
export function environmentFor(
  user: AgentUser,
  env: Readonly<Record<string, string>>,
  own: ReadonlySet<string> = new Set(),
): Record<string, string> {
  const out = { ...env };
  const set = (k: string, v: string | undefined) => {
    if (v !== undefined && !own.has(k)) out[k] = v;
  };
  set("HOME", user.home);
  if (!/^\d+:\d+$/.test(user.name)) {
    set("USER", user.name);
    set("LOGNAME", user.name);
  }
  return out;
}
