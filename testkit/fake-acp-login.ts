/**
 * A console with one fake ACP agent (server/backends/acp/testing/fake-agent.mjs) that needs a login
 * until a file exists, for the Settings login flows (device code, terminal): the agent's env names the
 * file (`FAKE_DEVICE_AUTH`, `FAKE_TERMINAL_AUTH`), and `page(browser, theme)` opens a logged-in page
 * in that theme. `fakeLoginConsoleFor(test, …)` starts one for a spec file's tests.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Browser, Page } from "@playwright/test";
import { type ConsoleProcess, startConsole } from "./console";
import { loginCookie } from "./launch-console";

export const FAKE_AGENT = path.resolve(
  import.meta.dirname,
  "..",
  "server",
  "backends",
  "acp",
  "testing",
  "fake-agent.mjs",
);

export interface FakeLoginConsole {
  console: ConsoleProcess;
  /** The workspace and the agent's directory. */
  dir: string;
  /** The file whose existence means "logged in". */
  done: string;
  /** A new browser context logged in, in `theme`, and its page. */
  page(browser: Browser, theme: string): Promise<Page>;
  /** Signs the agent out again: the login file removed and the backend restarted. */
  signOut(): Promise<void>;
  stop(): Promise<void>;
}

/** The hooks of a test runner (Playwright's `test`) that a spec file's console is started and stopped in. */
interface FileHooks {
  beforeAll(fn: () => Promise<void>): void;
  afterAll(fn: () => Promise<void>): void;
}

/** Starts the console before the file's tests and stops it after them; returns it, once started. */
export function fakeLoginConsoleFor(
  test: FileHooks,
  label: string,
  loginVar: "FAKE_DEVICE_AUTH" | "FAKE_TERMINAL_AUTH",
): () => FakeLoginConsole {
  let started: FakeLoginConsole | undefined;
  test.beforeAll(async () => {
    started = await startFakeLoginConsole({ label, loginVar });
  });
  test.afterAll(async () => {
    await started?.stop();
  });
  return () => {
    if (!started) throw new Error("the fake login console is started in beforeAll");
    return started;
  };
}

/** The console with the agent labelled `label` (its backend id is the label in lower case). */
export async function startFakeLoginConsole(o: {
  label: string;
  /** The fake agent's variable naming the login file. */
  loginVar: "FAKE_DEVICE_AUTH" | "FAKE_TERMINAL_AUTH";
}): Promise<FakeLoginConsole> {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `sb-${o.label.toLowerCase()}-login-`)));
  const done = path.join(dir, "logged-in");
  const token = `e2e-${randomBytes(24).toString("base64url")}`;
  const proc = await startConsole({
    env: {
      SWITCHBOARD_TOKEN: token,
      SWITCHBOARD_WORKSPACE: dir,
      SWITCHBOARD_BACKENDS: JSON.stringify([
        {
          kind: "acp",
          label: o.label,
          config: { command: [process.execPath, FAKE_AGENT], env: { [o.loginVar]: done }, cwd: dir },
        },
      ]),
    },
  });
  const cookie = await loginCookie(proc.url, token);
  return {
    console: proc,
    dir,
    done,
    async page(browser, theme) {
      const ctx = await browser.newContext({ baseURL: proc.url });
      await ctx.addCookies([{ name: "sb_session", value: cookie, url: proc.url, httpOnly: true, sameSite: "Strict" }]);
      await ctx.addInitScript((t) => localStorage.setItem("sb-theme", t), theme);
      return ctx.newPage();
    },
    async signOut() {
      fs.rmSync(done);
      const r = await fetch(`${proc.url}/api/backends/${o.label.toLowerCase()}/restart`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, origin: proc.url },
      });
      if (!r.ok) throw new Error(`restarting the backend answered ${r.status}: ${await r.text()}`);
    },
    async stop() {
      await proc.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
