/**
 * What every test stack does with the built console: start it with the stack's environment, wait
 * until its backends have settled, log in, and later restart it on its port or read a backend.
 * A stack adds its own parts to the object launchConsole returns (Object.assign), so a restart seen
 * through the stack changes the same `url` and `console`.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import type { BackendDefinition } from "../lib/api";
import type { Backend } from "../lib/model";
import { startConsole, type ConsoleProcess } from "./console";
import type { ScriptedModel } from "./scripted-model";

export interface LaunchedConsole {
  /** The console's environment (SWITCHBOARD_*), read again at each restart. */
  env: Record<string, string>;
  console: ConsoleProcess;
  url: string;
  token: string;
  /** The `sb_session` cookie's value, from logging in with the token. */
  sessionCookie: string;
  /** Stop the console and start it again on its port with the same environment object, then wait for its backends. */
  restartConsole(): Promise<void>;
  backend(id: string): Promise<Backend>;
}

/** What most stacks hold besides the console: the scripted model, the workspace, the data folder. */
export interface ConsoleStack extends LaunchedConsole {
  model: ScriptedModel;
  workspace: string;
  dataDir: string;
}

export type BackendsSettled = (url: string, token: string) => Promise<void>;

/**
 * Starts the console on the stack's workspace, data folder and backends (stackEnv, with a fresh
 * token), waits for `settled`, logs in. Its environment object is kept on the result: a stack may
 * change it (a fresh data folder) before a restart. A console whose backends never settle is
 * stopped before the error is thrown.
 */
export async function launchConsole(
  opts: Parameters<typeof stackEnv>[0] & { settled: BackendsSettled },
): Promise<LaunchedConsole> {
  const { token, env } = stackEnv(opts);
  const { settled } = opts;
  const launched: LaunchedConsole = {
    env,
    console: await startConsole({ env }),
    url: "",
    token,
    sessionCookie: "",
    async restartConsole() {
      const port = launched.console.port;
      await launched.console.stop();
      launched.console = await startConsole({ env, port });
      launched.url = launched.console.url;
      await settled(launched.url, token);
    },
    async backend(id) {
      const r = await fetch(`${launched.url}/api/backends/${id}`, { headers: bearer(token) });
      return (await r.json()) as Backend;
    },
  };
  launched.url = launched.console.url;
  try {
    await settled(launched.url, token);
    launched.sessionCookie = await loginCookie(launched.url, token);
  } catch (err) {
    await launched.console.stop().catch(() => undefined);
    throw err;
  }
  return launched;
}

function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

/** Logs in like the login page does and returns the session cookie's value. */
export async function loginCookie(url: string, token: string): Promise<string> {
  const r = await fetch(`${url}/api/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: url },
    body: JSON.stringify({ token }),
  });
  if (r.status !== 200) throw new Error(`login failed: ${r.status} ${await r.text()}`);
  const m = /(?:^|,\s*)sb_session=([^;]+)/.exec(r.headers.get("set-cookie") ?? "");
  if (!m?.[1]) throw new Error("login answered without a session cookie");
  return m[1];
}

/**
 * Waits until the console's backends list passes `ok` (polled every 200 ms; a console still
 * starting counts as not yet), or throws `what` after `timeoutMs`.
 */
export function backendsWhere(ok: (items: Backend[]) => boolean, what: string, timeoutMs = 60_000): BackendsSettled {
  return async (url, token) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        const r = await fetch(`${url}/api/backends`, { headers: bearer(token) });
        const { items } = (await r.json()) as { items: Backend[] };
        if (ok(items)) return;
      } catch {
        // the console is starting or restarting
      }
      if (Date.now() > deadline) throw new Error(what);
      await new Promise((r) => setTimeout(r, 200));
    }
  };
}

/** Every listed backend has one of these statuses (an id not listed counts as missing). */
export function statuses(want: Record<string, Backend["status"]>): (items: Backend[]) => boolean {
  return (items) => Object.entries(want).every(([id, s]) => items.find((b) => b.id === id)?.status === s);
}

/** All of the console's backends ready (at least one). */
export async function waitForBackendReady(url: string, token: string, timeoutMs = 45_000): Promise<void> {
  await backendsWhere(
    (items) => items.length > 0 && items.every((b) => b.status === "ready"),
    "backend did not become ready",
    timeoutMs,
  )(url, token);
}

/**
 * A stack's console environment: a fresh token, its workspace and data folder, info logs, its
 * backends (`SWITCHBOARD_BACKENDS`) and anything more in `env` (which wins).
 */
export function stackEnv(o: {
  workspace: string;
  dataDir: string;
  backends?: BackendDefinition[];
  env?: Record<string, string>;
  /** The console token; a fresh random one by default. */
  token?: string;
}): { token: string; env: Record<string, string> } {
  const token = o.token ?? `e2e-${randomBytes(24).toString("base64url")}`;
  const env: Record<string, string> = {
    SWITCHBOARD_TOKEN: token,
    SWITCHBOARD_WORKSPACE: o.workspace,
    SWITCHBOARD_DATA_DIR: o.dataDir,
    SWITCHBOARD_LOG: "info",
    ...(o.backends ? { SWITCHBOARD_BACKENDS: JSON.stringify(o.backends) } : {}),
    ...o.env,
  };
  return { token, env };
}

/**
 * Stops a stack: its console first, then the stack's own parts in order (agents, servers), its
 * scripted model, and its folders.
 */
export async function stopLaunched(
  s: LaunchedConsole & { model: { close(): Promise<void> }; workspace?: string; dataDir?: string },
  ...parts: Array<() => unknown>
): Promise<void> {
  await s.console.stop();
  for (const stop of parts) await stop();
  await s.model.close();
  for (const dir of [s.workspace, s.dataDir]) if (dir) fs.rmSync(dir, { recursive: true, force: true });
}
