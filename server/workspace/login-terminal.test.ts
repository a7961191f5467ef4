/**
 * Settings → *Run in terminal*, the server part: a real ACP adapter running the fake agent with a
 * terminal login (FAKE_TERMINAL_AUTH, listed as claude-agent-acp 0.101.0 lists its own), and the
 * login run in a real pseudo-terminal with the agent's environment and directory; exit 0 restarts
 * the backend, which reads the new login.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import type { Backend } from "@/lib/model";
import { until } from "@/testkit/until";
import { AcpAdapter } from "../backends/acp/adapter";
import type { BackendRegistry } from "../backends/registry";
import { SqliteStore } from "../store/sqlite-store";
import { LOGIN_SCOPE, openLoginTerminal } from "./login-terminal";
import { TerminalManager } from "./terminals";

const FAKE = path.resolve(import.meta.dirname, "..", "backends", "acp", "testing", "fake-agent.mjs");
const sink = {
  publish() {},
  backendChanged: (_b: Backend) => {},
  openSessions: () => [],
  reconcile() {},
  sessionState: () => undefined,
  openSession: async () => {},
};

let dir: string;
let adapter: AcpAdapter | undefined;
let terminals: TerminalManager | undefined;
beforeAll(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "sb-login-term-")));
});
afterEach(async () => {
  await terminals?.stop();
  await adapter?.stop();
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

async function setup(file: string) {
  const work = fs.mkdtempSync(path.join(dir, "work-"));
  adapter = new AcpAdapter(
    {
      id: "fake",
      label: "Fake",
      command: [process.execPath, FAKE],
      env: { FAKE_TERMINAL_AUTH: file },
      cwd: work,
      workspace: work,
      store: new SqliteStore(":memory:"),
    },
    sink,
  );
  terminals = new TerminalManager();
  await adapter.start();
  await expect.poll(() => adapter!.info().status, { timeout: 30_000 }).toBe("auth-required");
  const a = adapter;
  const console = { backends: { require: () => a } as unknown as BackendRegistry, terminals };
  return { work, console };
}

function output(m: TerminalManager, id: string) {
  let text = "";
  let exit: number | undefined;
  m.get("fake", LOGIN_SCOPE, id, "login").follow(0, (e) => {
    if ("chunk" in e) text += e.chunk.data;
    else exit = e.exit;
  });
  return { text: () => text, exit: () => exit };
}

it("runs the agent's terminal login in a pty with its environment and directory; exit 0 restarts it ready", async () => {
  const file = path.join(dir, "logged-in");
  const { work, console } = await setup(file);
  const method = adapter!.info().authMethods?.find((m) => m.id === "fake-terminal-login");
  expect(method).toMatchObject({ type: "terminal", runInTerminal: true, command: `node ${FAKE} --login` });

  const t = await openLoginTerminal(console, "fake", "fake-terminal-login", { cols: 80, rows: 24 });
  expect(t).toMatchObject({ command: `node ${FAKE} --login`, cwd: work });
  const out = output(terminals!, t.id);
  await until(() => out.text().includes("Paste the code"), "the login's prompt");
  // a session's routes never reach a login terminal
  expect(() => terminals!.get("fake", LOGIN_SCOPE, t.id)).toThrow(/No such terminal/);
  terminals!.write("fake", LOGIN_SCOPE, t.id, "4821\r", "login");
  await until(() => out.exit() !== undefined, "the login exits");
  expect(out.exit()).toBe(0);
  expect(out.text()).toContain("Logged in.");
  // FAKE_TERMINAL_AUTH came from the agent's own env; the login ran in the agent's directory
  expect(fs.readFileSync(file, "utf8")).toBe(work);
  await expect.poll(() => adapter!.info().status, { timeout: 30_000 }).toBe("ready");
}, 60_000);

it("a failed login leaves the backend as it was; a method that is not a terminal login is refused", async () => {
  const file = path.join(dir, "never");
  const { console } = await setup(file);
  await expect(openLoginTerminal(console, "fake", "fake-login", { cols: 80, rows: 24 })).rejects.toThrow(
    /not a login the console can run/,
  );
  const t = await openLoginTerminal(console, "fake", "fake-terminal-login", { cols: 80, rows: 24 });
  const out = output(terminals!, t.id);
  await until(() => out.text().includes("Paste the code"), "the login's prompt");
  terminals!.write("fake", LOGIN_SCOPE, t.id, "0000\r", "login");
  await until(() => out.exit() !== undefined, "the login exits");
  expect(out.exit()).toBe(1);
  expect(fs.existsSync(file)).toBe(false);
  expect(adapter!.info().status).toBe("auth-required");
  // opening another closes the first: one login terminal per backend
  const again = await openLoginTerminal(console, "fake", "fake-terminal-login", { cols: 80, rows: 24 });
  expect(terminals!.list("fake", LOGIN_SCOPE, "login").map((x) => x.id)).toEqual([again.id]);
  // a login closed from the console (the dialog closed) is no login: no restart
  const pid = adapter!.pid;
  await terminals!.close("fake", LOGIN_SCOPE, again.id, "login");
  expect(adapter!.pid).toBe(pid);
  expect(adapter!.info().status).toBe("auth-required");
}, 60_000);
