/**
 * A device-code login over ACP, against the fake agent speaking codex-acp 2.6.0's method
 * (`chat-gpt-device-code`, listed only to clients declaring URL elicitation) and its flow
 * (`authenticate` → `elicitation/create` mode `url` with "… enter this code: …" → done when the user
 * has finished): the backend is auth-required before New session, Settings' *Sign in* shows the link
 * and the code, and the backend turns ready when the login completes.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import type { Backend } from "@/lib/model";
import { until } from "@/testkit/until";
import { SqliteStore } from "../../store/sqlite-store";
import { AcpAdapter } from "./adapter";

const FAKE = path.join(import.meta.dirname, "testing", "fake-agent.mjs");
const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "acp-device-")));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

it("signs in with a device code: the link and the code show, then the backend is ready", async () => {
  const done = path.join(dir, "finished");
  const changes: Backend[] = [];
  const adapter = new AcpAdapter(
    {
      id: "dev",
      label: "Device",
      command: [process.execPath, FAKE],
      env: { FAKE_DEVICE_AUTH: done },
      cwd: dir,
      workspace: dir,
      store: new SqliteStore(":memory:"),
    },
    {
      publish() {},
      backendChanged: (b) => changes.push(b),
      openSessions: () => [],
      reconcile() {},
      sessionState: () => undefined,
      openSession: async () => {},
    },
  );
  try {
    await adapter.start();
    // probed at start: auth-required before anyone asks for a session
    await until(() => adapter.info().status === "auth-required", "auth-required after the handshake");
    const device = () => adapter.info().authMethods?.find((m) => m.id === "chat-gpt-device-code");
    expect(device()).toMatchObject({ type: "agent", signIn: true, name: "ChatGPT (device code)" });
    expect(device()).not.toHaveProperty("login");
    await expect(adapter.signIn("fake-login")).rejects.toMatchObject({ code: "bad_request" });

    await adapter.signIn("chat-gpt-device-code");
    await until(() => device()?.login?.url !== undefined, "the agent's link");
    expect(device()!.login).toEqual({
      url: "https://auth.example.test/codex/device",
      message: "Sign in to ChatGPT and enter this code: WXYZ-4821",
    });
    expect(changes.at(-1)!.authMethods?.find((m) => m.id === "chat-gpt-device-code")?.login?.message).toContain(
      "WXYZ-4821",
    );
    await expect(adapter.signIn("chat-gpt-device-code")).rejects.toMatchObject({ code: "conflict" });
    expect(adapter.info().status).toBe("auth-required");

    // the user finishes at the link
    fs.writeFileSync(done, "");
    await until(() => adapter.info().status === "ready", "ready after the sign-in");
    expect(device()).not.toHaveProperty("login");
    const s = await adapter.createSession({});
    expect(s.id).toMatch(/^fake-/);
  } finally {
    await adapter.stop();
  }
}, 60_000);
