/**
 * A console with one fake ACP agent (server/backends/acp/testing/fake-agent.mjs) that needs a login
 * until a file exists, for the Settings login flows (device code, terminal): the agent's env names the
 * file (`FAKE_DEVICE_AUTH`, `FAKE_TERMINAL_AUTH`), and `page(browser, theme)` opens a logged-in page
 * in that theme.
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
  stop(): Promise<void>;
}

export async function startFakeLoginConsole(o: {
  label: string;
  /** The fake agent's variable naming the login file. */
  loginVar: "FAKE_DEVICE_AUTH" | "FAKE_TERMINAL_AUTH";
  /** The login file's name in the directory. */
  fileName: string;
  tmpPrefix: string;
}): Promise<FakeLoginConsole> {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), o.tmpPrefix)));
  const done = path.join(dir, o.fileName);
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
    async stop() {
      await proc.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
