import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { redisPerFile } from "../../testkit/redis-per-file";
import { until } from "@/testkit/until";
import { logout, personSession, principalOf, SESSION_COOKIE, shareAuthState } from "../auth/console-auth";
import { ReplicatedSet } from "./replicated-set";

/**
 * A person signed in through the identity provider logs out on one replica, and their cookie stops
 * working on the other (docs/people.md, "Sessions and logout"): two replicas' login states — each
 * its own data folder and list of revoked sessions — sharing the logouts through a real Redis, as
 * replica mode wires them (server/replicas/replica-mode.ts).
 */

const { client } = redisPerFile();
const g = globalThis as typeof globalThis & { __switchboardAuth?: unknown };
const saved = { token: process.env.SWITCHBOARD_TOKEN, data: process.env.SWITCHBOARD_DATA_DIR };
const dirs: string[] = [];
const sets: ReplicatedSet[] = [];

interface Replica {
  dir: string;
  loggedOut: ReplicatedSet;
}

async function replica(): Promise<Replica> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sb-logout-"));
  dirs.push(dir);
  const loggedOut = new ReplicatedSet(client(), client(), "logouts");
  await loggedOut.start();
  sets.push(loggedOut);
  return { dir, loggedOut };
}

/** This process acts as `r` from now on: its data folder, its revocations, the shared logouts. */
function become(r: Replica): void {
  delete g.__switchboardAuth;
  process.env.SWITCHBOARD_DATA_DIR = r.dir;
  shareAuthState({
    loggedOut: r.loggedOut,
    limiter: { check: async () => ({ allowed: true, retryAfter: 0 }), hit: async () => {} },
  });
}

beforeAll(() => {
  process.env.SWITCHBOARD_TOKEN = "people-logout-test-token-0123456789";
});
afterAll(async () => {
  shareAuthState(undefined);
  delete g.__switchboardAuth;
  for (const s of sets) await s.stop();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  if (saved.token === undefined) delete process.env.SWITCHBOARD_TOKEN;
  else process.env.SWITCHBOARD_TOKEN = saved.token;
  if (saved.data === undefined) delete process.env.SWITCHBOARD_DATA_DIR;
  else process.env.SWITCHBOARD_DATA_DIR = saved.data;
});

it("a person's logout on one replica ends their cookie on the other within a second", async () => {
  const a = await replica();
  const b = await replica();
  become(a);
  const olga = { user: { id: "sub-olga", name: "Olga", email: "olga@example.test" }, role: "operator" as const };
  const { cookieValue } = personSession(olga);
  const headers = new Headers({ cookie: `${SESSION_COOKIE}=${cookieValue}` });
  expect(principalOf(headers)).toEqual({ ...olga, via: "oidc" });
  become(b);
  expect(principalOf(headers)?.user.id).toBe("sub-olga");

  become(a);
  expect((await logout(cookieValue))?.person?.user.id).toBe("sub-olga");
  expect(principalOf(headers)).toBeUndefined();

  // B never saw the logout itself: its own list of revoked sessions is empty; Redis tells it.
  become(b);
  expect(fs.existsSync(path.join(b.dir, "revoked-sessions.json"))).toBe(false);
  // The bound the console promises ("within a second") as the wait's deadline, not a timing assertion.
  await until(() => principalOf(headers) === undefined, "B refuses the cookie", 1000);
  expect(principalOf(headers)).toBeUndefined();
});
