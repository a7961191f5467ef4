import { test, expect } from "./fixtures/opencode";
import { authHeaders } from "../testkit/opencode-stack";
import type { Snapshot, WireEvent } from "../lib/model";
import { startExternalSetup } from "../testkit/external-opencode";

/** Authorization for the raw fetches below (set per test from the stack). */
let auth: Record<string, string> = {};
test.beforeEach(({ stack }) => {
  auth = authHeaders(stack);
});

/** Reads an SSE response body until `until` is true or the time runs out. */
async function readSse(
  url: string,
  headers: Record<string, string>,
  until: (evs: WireEvent[]) => boolean,
  ms = 20_000,
) {
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), ms);
  const events: WireEvent[] = [];
  const ids: string[] = [];
  try {
    const res = await fetch(url, { headers: { accept: "text/event-stream", ...auth, ...headers }, signal: ac.signal });
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buf = "";
    while (!until(events)) {
      const { done, value } = await reader.read();
      if (done) break;
      buf += value;
      let i: number;
      while ((i = buf.indexOf("\n\n")) >= 0) {
        const frame = buf.slice(0, i);
        buf = buf.slice(i + 2);
        const id = /^id: (.*)$/m.exec(frame)?.[1];
        const data = /^data: (.*)$/m.exec(frame)?.[1];
        if (id && data) {
          ids.push(id);
          events.push(JSON.parse(data) as WireEvent);
        }
      }
    }
  } catch (err) {
    if (!ac.signal.aborted) throw err;
  } finally {
    clearTimeout(timer);
    ac.abort();
  }
  return { events, ids };
}

test.describe("HTTP API contract (docs/api.md)", () => {
  test("session, 202 prompt, seq-numbered events and exact Last-Event-ID replay", async ({ api, stack, request }) => {
    stack.model.enqueue(
      { toolCalls: [{ name: "bash", arguments: { command: "echo contract" } }] },
      { text: "contract done" },
    );
    const s = await api.createSession("contract");
    const snap = await api.snapshot(s.id);
    expect(snap.session.id).toBe(s.id);
    const eventsUrl = `${api.base(s.id)}/events`;
    const live = readSse(eventsUrl, { "last-event-id": String(snap.seq) }, (evs) =>
      evs.some(
        (e) =>
          e.type === "session.status" &&
          e.status === "idle" &&
          evs.some((x) => x.type === "block.updated" && x.block.kind === "text" && x.block.text === "contract done"),
      ),
    );
    await new Promise((r) => setTimeout(r, 300));
    const res = await request.post(`${api.base(s.id)}/prompt`, {
      data: { parts: [{ type: "text", text: "contract please" }] },
    });
    expect(res.status()).toBe(202);
    const { events, ids } = await live;
    expect(events.length).toBeGreaterThan(5);
    // ids are the seqs, strictly growing
    const seqs = ids.map(Number);
    expect(seqs.every((n, i) => i === 0 || n > seqs[i - 1]!)).toBe(true);
    expect(events.map((e) => e.seq)).toEqual(seqs);
    const tool = events.find(
      (e) => e.type === "block.updated" && e.block.kind === "tool" && e.block.status === "completed",
    );
    expect(tool && tool.type === "block.updated" && tool.block.kind === "tool" && tool.block.output).toContain(
      "contract",
    );
    expect(events.some((e) => e.type === "block.updated" && e.block.kind === "text")).toBe(true);

    // Let the turn settle, then read the whole log from the snapshot's seq: the live events are its prefix.
    await api.waitIdle(s.id);
    await new Promise((r) => setTimeout(r, 1000));
    const last = (await api.snapshot(s.id)).seq;
    const upToLast = (evs: WireEvent[]) => evs.length > 0 && evs[evs.length - 1]!.seq >= last;
    const full = (await readSse(eventsUrl, { "last-event-id": String(snap.seq) }, upToLast, 5000)).ids.map(Number);
    expect(full.slice(0, seqs.length)).toEqual(seqs);
    expect(full[full.length - 1]).toBe(last);

    // Resume from the middle: exactly the missed events, in order.
    const mid = Math.floor(full.length / 2);
    const replay = await readSse(eventsUrl, { "last-event-id": String(full[mid - 1]) }, upToLast, 5000);
    expect(replay.ids.map(Number)).toEqual(full.slice(mid));
    // ?after= works the same way
    const replay2 = await readSse(`${eventsUrl}?after=${full[full.length - 3]}`, {}, upToLast, 5000);
    expect(replay2.ids.map(Number)).toEqual(full.slice(-2));
    // An unknown seq gets stream.reset first.
    const reset = await readSse(eventsUrl, { "last-event-id": "5" }, (evs) => evs.length >= 1, 5000);
    expect(reset.events[0]?.type).toBe("stream.reset");
  });

  test("errors have the documented shape and status codes", async ({ api, request, stack }) => {
    const s = await api.createSession("errors");
    const bad = await request.post(`${api.base(s.id)}/prompt`, { data: { parts: [] } });
    expect(bad.status()).toBe(400);
    const body = (await bad.json()) as { error: { code: string; message: string; details: { issues: unknown[] } } };
    expect(body.error.code).toBe("bad_request");
    expect(body.error.details.issues.length).toBeGreaterThan(0);
    const notJson = await request.post(`${api.base(s.id)}/prompt`, {
      data: "{nope",
      headers: { "content-type": "application/json" },
    });
    expect(notJson.status()).toBe(400);
    expect((await request.get(`${stack.url}/api/backends/nope/sessions`)).status()).toBe(404);
    const missing = await request.get(`${api.base("ses_doesnotexist000")}/snapshot`);
    expect(missing.status()).toBe(404);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe("not_found");
    expect((await request.patch(api.base(s.id), { data: { title: "" } })).status()).toBe(400);
    const renamed = await request.patch(api.base(s.id), { data: { title: "renamed" } });
    expect(((await renamed.json()) as { title: string }).title).toBe("renamed");
    const health = await request.get(`${stack.url}/api/health`);
    expect(await health.json()).toMatchObject({ ok: true });
    const list = await request.get(`${api.base()}?search=renamed&limit=5`);
    expect(((await list.json()) as { items: { id: string }[] }).items.some((x) => x.id === s.id)).toBe(true);
    const del = await request.delete(api.base(s.id));
    expect(del.status()).toBe(200);
    expect((await request.get(api.base(s.id))).status()).toBe(404);
  });
});

test("an external OpenCode behind Basic auth works, and its password never reaches the browser", async ({
  stack,
  request,
}) => {
  const password = "s3cret-basic-auth-pw";
  const ext = await startExternalSetup(stack, undefined, { password });
  try {
    const backends = await request.get(`${ext.console.url}/api/backends`);
    const text = await backends.text();
    expect(text).not.toContain(password);
    expect(JSON.parse(text)).toMatchObject({ items: [{ id: "opencode", status: "ready" }] });
    // Without credentials OpenCode itself refuses: the console is the one adding them.
    expect((await fetch(`${ext.opencode.url}/session`)).status).toBe(401);
    stack.model.enqueue({ text: "authenticated reply" });
    const s = (await (
      await request.post(`${ext.console.url}/api/backends/opencode/sessions`, { data: { title: "basic auth" } })
    ).json()) as { id: string };
    expect(
      (
        await request.post(`${ext.console.url}/api/backends/opencode/sessions/${s.id}/prompt`, {
          data: { parts: [{ type: "text", text: "hi" }] },
        })
      ).status(),
    ).toBe(202);
    await expect
      .poll(async () => {
        const snap = (await (
          await request.get(`${ext.console.url}/api/backends/opencode/sessions/${s.id}/snapshot`)
        ).json()) as Snapshot;
        return snap.messages
          .flatMap((m) => m.blocks)
          .some((b) => b.kind === "text" && b.text === "authenticated reply");
      })
      .toBe(true);
  } finally {
    await ext.stop();
  }
});
