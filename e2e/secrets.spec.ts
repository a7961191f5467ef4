/**
 * The console's secrets stay with the console (docs/security.md): what an agent's shell sees, what a
 * share and an export of a session that printed them show, where the token file and store live by
 * default, and the per-address cap on public share streams.
 */
import fs from "node:fs";
import path from "node:path";
import type { CreatedShare } from "../lib/api";
import type { Backend } from "../lib/model";
import { agentEnvOutput, expectNoConsoleSecrets } from "./fixtures/agent-env";
import { startConsole } from "../testkit/console";
import { fromAddress, type LoopbackResponse } from "../testkit/loopback-client";
import { createOpencodeHome, createWorkspace } from "../testkit/opencode-env";
import { expect, test } from "./fixtures/opencode";
import { loginCookie, waitForBackendReady } from "../testkit/launch-console";
import { authHeaders, type Stack } from "../testkit/opencode-stack";

const root = path.resolve(import.meta.dirname, "..");

async function createShare(stack: Stack, sessionId: string): Promise<CreatedShare> {
  const r = await fetch(`${stack.url}/api/shares`, {
    method: "POST",
    headers: { "content-type": "application/json", ...authHeaders(stack) },
    body: JSON.stringify({ backendId: stack.backendId, sessionId }),
  });
  expect(r.status).toBe(201);
  return (await r.json()) as CreatedShare;
}

/** The embedded OpenCode's password (its own backend secret), read from its process environment. */
async function embeddedPassword(stack: Stack): Promise<string> {
  const { headers } = await stack.opencode();
  const basic = Buffer.from(headers.authorization!.replace(/^Basic /, ""), "base64").toString();
  return basic.slice(basic.indexOf(":") + 1);
}

test.describe("the console's secrets", () => {
  test("the embedded OpenCode's bash tool running env shows no console secret", async ({ request, stack }) => {
    const out = await agentEnvOutput(request, stack.url, stack.backendId, stack.model);
    expectNoConsoleSecrets(out, [stack.token]);
    // OpenCode's own settings still reach it (its scripted provider works: the tool call ran).
    expect(out).toContain("OPENCODE_CONFIG_CONTENT=");
  });

  test("a share and an export of tool output holding the console token and a backend password show neither, plain, base64 or URL-encoded", async ({
    request,
    api,
    stack,
  }) => {
    const password = await embeddedPassword(stack);
    const forms = (s: string) => [
      s,
      Buffer.from(s).toString("base64"),
      encodeURIComponent(s),
      Buffer.from(`opencode:${s}`).toString("base64"),
    ];
    const printed = [...forms(stack.token), ...forms(password)];
    const command = ["cat <<'EOF'", ...printed.map((p, i) => `line ${i}: ${p}`), "EOF"].join("\n");
    stack.model.enqueue(
      { toolCalls: [{ name: "bash", arguments: { command, description: "Print some values" } }] },
      { text: "Printed." },
    );
    const s = await api.createSession("secrets in output");
    await api.prompt(s.id, "print the values");
    await api.waitIdle(s.id);
    const own = JSON.stringify(await api.snapshot(s.id));
    expect(own).toContain(stack.token); // the console's own view is the user's

    const share = await createShare(stack, s.id);
    const snap = await (await fetch(`${stack.url}/api/shares/public/${share.token}/snapshot`)).text();
    expect(snap).toContain("[REDACTED:console-secret]");
    const page = await (await fetch(share.url)).text();
    const exported = await (await request.get(`${api.base(s.id)}/export?format=json`)).text();
    const markdown = await (await request.get(`${api.base(s.id)}/export?format=markdown`)).text();
    const encodedCore = (v: string) => Buffer.from(v).toString("base64").slice(4, 24);
    for (const [where, text] of Object.entries({ snap, page, exported, markdown })) {
      for (const secret of [
        stack.token,
        password,
        encodeURIComponent(stack.token),
        encodeURIComponent(password),
        encodedCore(stack.token),
        encodedCore(password),
      ]) {
        expect(text.includes(secret), `${where} holds ${secret.slice(0, 6)}…`).toBe(false);
      }
    }
    await request.delete(`${stack.url}/api/shares/${share.id}`);
  });

  test("21 share streams from one client: the 21st is refused (429) whatever X-Forwarded-For says, another client still connects", async ({
    api,
    stack,
  }) => {
    stack.model.enqueue({ text: "Streams." });
    const s = await api.createSession("share streams");
    await api.prompt(s.id, "hello");
    await api.waitIdle(s.id);
    const share = await createShare(stack, s.id);
    const url = `${stack.url}/api/shares/public/${share.token}/events`;
    // Each stream is held open until the end; a client is the socket's address (127.0.0.21), never
    // the X-Forwarded-For it sends (a new one each time here, as a spoofing client would).
    const held: LoopbackResponse[] = [];
    const open = async (address: string, forwarded: string) => {
      const res = await fromAddress(address, url, {
        headers: { "x-forwarded-for": forwarded, accept: "text/event-stream" },
      });
      held.push(res);
      return res;
    };
    try {
      for (let i = 0; i < 20; i++)
        expect((await open("127.0.0.21", `198.51.100.${i}`)).status, `stream ${i + 1}`).toBe(200);
      const refused = await open("127.0.0.21", "198.51.100.99");
      expect(refused.status).toBe(429);
      expect(((await refused.json()) as { error: { code: string; message: string } }).error.message).toContain(
        "Too many share streams are open from this address",
      );
      expect(refused.headers["retry-after"]).toBeDefined();
      // The share page's live stream counts against the same client too.
      const live = await fromAddress("127.0.0.21", `${stack.url}/api/shares/public/live`);
      live.close();
      expect(live.status).toBe(429);
      expect((await open("127.0.0.22", "198.51.100.21")).status).toBe(200);
    } finally {
      for (const r of held) r.close();
      await fetch(`${stack.url}/api/shares/${share.id}`, { method: "DELETE", headers: authHeaders(stack) });
    }
  });
});

test.describe("the data folder", () => {
  test("by default the token file and the store are outside the workspace; an old ./.switchboard is moved; a session there is 403", async () => {
    const home = await createOpencodeHome({ modelBaseUrl: "http://127.0.0.1:9/v1" });
    const workspace = await createWorkspace();
    const old = path.join(workspace, ".switchboard");
    fs.mkdirSync(old);
    fs.writeFileSync(path.join(old, "console-token"), "old-console-token-0123456789abcdef\n", { mode: 0o600 });
    const xdgData = home.env.XDG_DATA_HOME!;
    const consoleProcess = await startConsole({
      cwd: workspace,
      defaultDataDir: true,
      env: {
        ...home.env,
        SWITCHBOARD_WORKSPACE_ROOTS: `${workspace}:${xdgData}`,
        SWITCHBOARD_OPENCODE_BIN: path.join(root, "node_modules", ".bin", "opencode"),
      },
    });
    try {
      const dataDir = path.join(xdgData, "switchboard");
      expect(consoleProcess.logs.join("\n")).toContain(`moved the console's data folder from ${old} to ${dataDir}`);
      expect(fs.existsSync(old)).toBe(false);
      expect(fs.readFileSync(path.join(dataDir, "console-token"), "utf8").trim()).toBe(
        "old-console-token-0123456789abcdef",
      );
      const token = "old-console-token-0123456789abcdef";
      await waitForBackendReady(consoleProcess.url, token, 90_000);
      expect(fs.existsSync(path.join(dataDir, "switchboard.db"))).toBe(true);
      const inWorkspace = fs.readdirSync(workspace, { recursive: true }).map(String);
      expect(inWorkspace.filter((f) => /console-token|switchboard\.db|\.switchboard/.test(f))).toEqual([]);
      const backends = (await (
        await fetch(`${consoleProcess.url}/api/backends`, { headers: { authorization: `Bearer ${token}` } })
      ).json()) as { items: Backend[] };
      const backendId = backends.items[0]!.id;
      const create = (directory: string) =>
        fetch(`${consoleProcess.url}/api/backends/${backendId}/sessions`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
          body: JSON.stringify({ title: "in the data folder", directory }),
        });
      const refused = await create(dataDir);
      expect(refused.status).toBe(403);
      expect(await refused.text()).toContain("inside the console's data folder");
      expect((await create(workspace)).status).toBe(201);
      await loginCookie(consoleProcess.url, token);
    } finally {
      await consoleProcess.stop();
      await home.cleanup();
      fs.rmSync(workspace, { recursive: true, force: true });
    }
  });
});
