/**
 * Today's adapters, real, without credentials.
 *
 * The real codex-acp (npm @agentclientprotocol/codex-acp 2.6.0) without credentials, in a hermetic
 * CODEX_HOME: its login is known only at `session/new`, so the backend probes it when it starts (a
 * throwaway session in a temporary directory, closed at once) and shows as auth-required with its
 * key form before anyone asks for a session. A key entered in Settings is sent in `authenticate`'s
 * `_meta["api-key"].apiKey` (codex-acp src/CodexAcpClient.ts, `authenticateWithApiKey`), after which
 * the backend is ready; the key never appears in what the browser gets.
 *
 * The real claude-agent-acp 0.101.0: the console declares terminal auth, so it lists its terminal
 * login (with NO_BROWSER set, `claude-login`, args `--cli`), shown as the command to run.
 */
import fs from "node:fs";
import os from "node:os";
import { afterAll, expect, it } from "vitest";
import type { Backend } from "@/lib/model";
import { claudeCodeAgent, codexAgent } from "../../../testkit/acp-vendor-env";
import { SqliteStore } from "../../store/sqlite-store";
import { AcpAdapter } from "./adapter";

const cleanups: (() => Promise<void>)[] = [];
const sink = (changes: Backend[]) => ({
  publish() {},
  backendChanged: (b: Backend) => changes.push(b),
  openSessions: () => [],
  reconcile() {},
  sessionState: () => undefined,
  openSession: async () => {},
});
afterAll(async () => {
  for (const c of cleanups) await c();
});

it("probes codex-acp at start: auth-required with the key form; a key sent in authenticate's _meta makes it ready", async () => {
  // the model URL is never reached: nothing here runs a turn
  const setup = await codexAgent({ modelUrl: "http://127.0.0.1:9/v1" });
  cleanups.push(setup.cleanup);
  const store = new SqliteStore(":memory:");
  const changes: Backend[] = [];
  const adapter = new AcpAdapter(
    {
      id: "codex",
      label: "Codex",
      command: setup.command,
      env: setup.env,
      cwd: setup.home,
      workspace: setup.home,
      store,
    },
    sink(changes),
  );
  const tmpBefore = new Set(fs.readdirSync(os.tmpdir()).filter((n) => n.startsWith("switchboard-acp-probe-")));
  try {
    await adapter.start();
    await adapter.ready(60_000).catch(() => undefined);
    await expect.poll(() => adapter.info().status, { timeout: 60_000 }).toBe("auth-required");
    const info = adapter.info();
    expect(info.error).toContain("API Key");
    const apiKey = info.authMethods?.find((m) => m.id === "api-key");
    expect(apiKey).toMatchObject({ type: "agent", vars: [{ name: "apiKey", label: "API key", set: false }] });
    // the probe's temporary directory is gone
    const tmpAfter = fs.readdirSync(os.tmpdir()).filter((n) => n.startsWith("switchboard-acp-probe-"));
    expect(tmpAfter.filter((n) => !tmpBefore.has(n))).toEqual([]);

    await adapter.setCredentials("api-key", { apiKey: "sk-codex-unit-5d2e" });
    await expect.poll(() => adapter.info().status, { timeout: 60_000 }).toBe("ready");
    expect(adapter.info().authMethods?.find((m) => m.id === "api-key")?.vars).toEqual([
      { name: "apiKey", label: "API key", set: true },
    ]);
    expect(JSON.stringify(changes)).not.toContain("sk-codex-unit-5d2e");
    // codex-acp stored the key it was given (its own login store, in the hermetic CODEX_HOME)
    const auth = JSON.parse(fs.readFileSync(`${setup.env.CODEX_HOME}/auth.json`, "utf8")) as Record<string, unknown>;
    expect(auth.OPENAI_API_KEY).toBe("sk-codex-unit-5d2e");
  } finally {
    await adapter.stop();
  }
}, 180_000);

it("lists claude-agent-acp's terminal login as the command to run, beside the console's ANTHROPIC_API_KEY", async () => {
  const setup = await claudeCodeAgent({ modelUrl: "http://127.0.0.1:9/v1" });
  cleanups.push(setup.cleanup);
  const adapter = new AcpAdapter(
    {
      id: "claude",
      label: "Claude",
      command: setup.command,
      env: setup.env,
      cwd: setup.home,
      workspace: setup.home,
      store: new SqliteStore(":memory:"),
    },
    sink([]),
  );
  try {
    await adapter.start();
    await adapter.ready(60_000);
    const methods = adapter.info().authMethods ?? [];
    expect(methods.map((m) => `${m.id}:${m.type}:${m.command ?? ""}`)).toEqual([
      "claude-login:terminal:claude-agent-acp --cli",
      "anthropic-api-key:env_var:",
    ]);
    // Settings offers *Run in terminal*: the adapter's own command with the method's args, its env and directory
    expect(methods[0]?.runInTerminal).toBe(true);
    expect(adapter.terminalLogin("claude-login")).toMatchObject({
      run: [...setup.command, "--cli"],
      display: "claude-agent-acp --cli",
      env: setup.env,
      cwd: setup.home,
    });
    // it would open sessions without a login (the first prompt is what fails), but it reports its own
    // login after initialize (`_auth/status_update` from `claude auth status`): logged out, before any New
    expect(adapter.info().status).toBe("auth-required");
    expect(adapter.info().error).toContain('Claude is not logged in (it reports "Not logged in")');
    expect(adapter.info().error).toContain("ANTHROPIC_API_KEY");
    await expect(adapter.createSession({})).rejects.toMatchObject({ code: "backend_down" });
  } finally {
    await adapter.stop();
  }
}, 120_000);
