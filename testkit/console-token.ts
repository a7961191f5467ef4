import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll } from "vitest";

/**
 * For a unit test file that reads the console's login: `SWITCHBOARD_TOKEN` set to `token` and a
 * fresh `SWITCHBOARD_DATA_DIR` for the file, the login state (`__switchboardAuth`, read once from
 * them) dropped before and after, and both variables put back afterwards.
 */
export function consoleTokenPerFile(token: string, prefix = "sb-auth-"): void {
  let dir: string | undefined;
  const saved = { token: process.env.SWITCHBOARD_TOKEN, data: process.env.SWITCHBOARD_DATA_DIR };
  const forget = () => delete (globalThis as { __switchboardAuth?: unknown }).__switchboardAuth;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    process.env.SWITCHBOARD_TOKEN = token;
    process.env.SWITCHBOARD_DATA_DIR = dir;
    forget();
  });
  afterAll(() => {
    forget();
    if (saved.token === undefined) delete process.env.SWITCHBOARD_TOKEN;
    else process.env.SWITCHBOARD_TOKEN = saved.token;
    if (saved.data === undefined) delete process.env.SWITCHBOARD_DATA_DIR;
    else process.env.SWITCHBOARD_DATA_DIR = saved.data;
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });
}
