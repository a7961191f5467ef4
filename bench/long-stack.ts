/**
 * The bench's stack: the scripted model, a hermetic OpenCode home holding a seeded long session
 * (testkit/long-session.ts → `opencode import`), one `opencode serve` without a password (so
 * OpenCode's own web app at its root can be measured on the same server), and the built console
 * (`next start`) connected to it as an external backend.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { Backend, Session } from "../lib/model";
import { startConsole, type ConsoleProcess } from "../testkit/console";
import { generateLongSession, countBlocks, importLongSession } from "../testkit/long-session";
import { createOpencodeHome, createWorkspace, type OpencodeHome } from "../testkit/opencode-env";
import { startOpencodeServer, type OpencodeServer } from "../testkit/opencode-server";
import { startScriptedModel, type ScriptedModel } from "../testkit/scripted-model";

export const FIRST_WORD = "Zanzibar";
export const LAST_WORD = "Omega";

export interface LongStack {
  model: ScriptedModel;
  home: OpencodeHome;
  workspace: string;
  opencode: OpencodeServer;
  console: ConsoleProcess;
  token: string;
  backendId: string;
  /** The seeded session. */
  sessionId: string;
  messages: number;
  blocks: number;
  seedMs: number;
  headers: Record<string, string>;
  api(path: string, init?: RequestInit): Promise<Response>;
  createSession(title: string): Promise<Session>;
  prompt(sessionId: string, text: string): Promise<void>;
  loginCookie(): Promise<string>;
  stop(): Promise<void>;
}

export async function startLongStack(opts: { messages?: number } = {}): Promise<LongStack> {
  const model = await startScriptedModel();
  const home = await createOpencodeHome({ modelBaseUrl: model.url });
  const workspace = await createWorkspace();
  const t0 = performance.now();
  const doc = generateLongSession({
    directory: workspace,
    messages: opts.messages ?? 5000,
    firstWord: FIRST_WORD,
    lastWord: LAST_WORD,
  });
  const sessionId = await importLongSession(doc, { directory: workspace, env: home.env });
  const seedMs = performance.now() - t0;
  const opencode = await startOpencodeServer({ env: home.env, cwd: workspace });
  const dataDir = path.join(home.home, "console-data");
  fs.mkdirSync(dataDir, { recursive: true });
  const token = `bench-${randomBytes(24).toString("base64url")}`;
  const consoleProcess = await startConsole({
    env: {
      ...home.env,
      OPENCODE_BASE_URL: opencode.url,
      SWITCHBOARD_DATA_DIR: dataDir,
      SWITCHBOARD_WORKSPACE: workspace,
      SWITCHBOARD_TOKEN: token,
      SWITCHBOARD_LOG: "warn",
    },
  });
  const headers = { authorization: `Bearer ${token}` };
  const api = (p: string, init: RequestInit = {}) =>
    fetch(`${consoleProcess.url}${p}`, {
      ...init,
      headers: {
        ...headers,
        "content-type": "application/json",
        ...(init.headers as Record<string, string> | undefined),
      },
    });
  // Wait for the backend.
  let backendId = "";
  const deadline = Date.now() + 60_000;
  while (!backendId) {
    try {
      const { items } = (await (await api("/api/backends")).json()) as { items: Backend[] };
      const ready = items.find((b) => b.status === "ready");
      if (ready) backendId = ready.id;
    } catch {
      // starting
    }
    if (!backendId) {
      if (Date.now() > deadline) throw new Error("the console's OpenCode backend did not become ready");
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  const stack: LongStack = {
    model,
    home,
    workspace,
    opencode,
    console: consoleProcess,
    token,
    backendId,
    sessionId,
    messages: doc.messages.length,
    blocks: countBlocks(doc),
    seedMs,
    headers,
    api,
    async createSession(title) {
      const r = await api(`/api/backends/${backendId}/sessions`, { method: "POST", body: JSON.stringify({ title }) });
      if (r.status !== 201) throw new Error(`create session: ${r.status} ${await r.text()}`);
      return (await r.json()) as Session;
    },
    async prompt(id, text) {
      const r = await api(`/api/backends/${backendId}/sessions/${id}/prompt`, {
        method: "POST",
        body: JSON.stringify({ parts: [{ type: "text", text }] }),
      });
      if (r.status !== 202) throw new Error(`prompt: ${r.status} ${await r.text()}`);
    },
    async loginCookie() {
      const r = await fetch(`${consoleProcess.url}/api/auth/login`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: consoleProcess.url },
        body: JSON.stringify({ token }),
      });
      const m = /(?:^|,\s*)sb_session=([^;]+)/.exec(r.headers.get("set-cookie") ?? "");
      if (!m?.[1]) throw new Error(`login failed: ${r.status}`);
      return m[1];
    },
    async stop() {
      await consoleProcess.stop();
      await opencode.stop();
      await model.close();
      await home.cleanup();
      fs.rmSync(workspace, { recursive: true, force: true });
    },
  };
  return stack;
}

/**
 * A reply that streams `deltas` text pieces at `perSecond` (the scripted model's chunking). It ends
 * with LAST_WORD, so the session's newest message still carries the marker the load time waits for.
 */
export function streamingTurn(deltas: number, perSecond: number, match?: string) {
  const words = Array.from({ length: deltas }, (_, i) => (i === deltas - 1 ? LAST_WORD : `w${i}`));
  // A modest reported usage: the model's real prompt (the whole long history) would make OpenCode
  // compact the session after the turn, which is not what is measured.
  return {
    text: words.join(" "),
    chunks: deltas,
    delayMs: Math.round(1000 / perSecond),
    usage: { prompt: 2000, completion: deltas },
    ...(match ? { match } : {}),
  };
}
