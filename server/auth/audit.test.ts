import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { route } from "../http";
import { type NewAuditEntry, setAuditSink } from "./audit";
import { personSession, SESSION_COOKIE } from "./console-auth";

/** The route wrapper records an audited action once it succeeded, with who did it and the rule's detail. */

let dir: string;
const saved = { token: process.env.SWITCHBOARD_TOKEN, data: process.env.SWITCHBOARD_DATA_DIR };
const entries: NewAuditEntry[] = [];
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "sb-audit-"));
  process.env.SWITCHBOARD_TOKEN = "audit-test-token-0123456789abcdef";
  process.env.SWITCHBOARD_DATA_DIR = dir;
  setAuditSink((e) => {
    entries.push(e);
  });
});
afterAll(() => {
  setAuditSink(undefined);
  if (saved.token === undefined) delete process.env.SWITCHBOARD_TOKEN;
  else process.env.SWITCHBOARD_TOKEN = saved.token;
  if (saved.data === undefined) delete process.env.SWITCHBOARD_DATA_DIR;
  else process.env.SWITCHBOARD_DATA_DIR = saved.data;
  fs.rmSync(dir, { recursive: true, force: true });
});

const olga = { user: { id: "sub-olga", name: "Olga", email: "olga@example.test" }, role: "operator" as const };

function post(p: string, body: unknown, headers: Record<string, string> = {}) {
  return new Request(`http://127.0.0.1:3000${p}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
}

describe("audit through the route wrapper", () => {
  it("records a prompt and an answer with their actor and detail, only when they succeed", async () => {
    const cookie = `${SESSION_COOKIE}=${personSession(olga).cookieValue}`;
    const ok = route<{ backendId: string; sessionId: string }>(async (req) => {
      await req.json(); // the handler reads the body; the audit keeps its own copy
      return Response.json({ accepted: true }, { status: 202 });
    });
    const params = Promise.resolve({ backendId: "b1", sessionId: "s1" });
    await ok(
      post("/api/backends/b1/sessions/s1/prompt", { parts: [{ type: "text", text: "list the files" }] }, { cookie }),
      {
        params,
      },
    );
    const answer = route<Record<string, string>>(async () => Response.json({ ok: true }));
    await answer(post("/api/backends/b1/sessions/s1/interrupts/i1", { decision: "allow_once" }, { cookie }), {
      params: Promise.resolve({ backendId: "b1", sessionId: "s1", interruptId: "i1" }),
    });
    const failing = route(async () => Response.json({ error: { code: "conflict", message: "busy" } }, { status: 409 }));
    await failing(post("/api/backends/b1/sessions/s1/abort", {}, { cookie }), { params });
    const unaudited = route(async () => Response.json({ ok: true }));
    await unaudited(post("/api/backends/b1/sessions/s1/compact", {}, { cookie }), { params });

    expect(entries).toEqual([
      {
        at: expect.any(Number),
        actor: { id: "sub-olga", name: "Olga", via: "oidc" },
        action: "prompt",
        backendId: "b1",
        sessionId: "s1",
        detail: { text: "list the files", parts: 1 },
      },
      {
        at: expect.any(Number),
        actor: { id: "sub-olga", name: "Olga", via: "oidc" },
        action: "interrupt.answer",
        backendId: "b1",
        sessionId: "s1",
        detail: { decision: "allow_once" },
      },
    ]);
  });

  it("names the token as the actor of a bearer request", async () => {
    entries.length = 0;
    const del = route<{ shareId: string }>(async () => Response.json({ ok: true }));
    await del(
      new Request("http://127.0.0.1:3000/api/shares/sh1", {
        method: "DELETE",
        headers: { authorization: "Bearer audit-test-token-0123456789abcdef" },
      }),
      { params: Promise.resolve({ shareId: "sh1" }) },
    );
    expect(entries).toEqual([
      {
        at: expect.any(Number),
        actor: { id: "token", name: "Console token", via: "token" },
        action: "share.revoke",
        detail: { shareId: "sh1" },
      },
    ]);
  });
});
