/**
 * Fault injection (docs/api.md, "Event stream"): the console keeps every event through crashes and
 * disconnects, and nothing here takes it down.
 *
 * - OpenCode SIGKILLed mid-turn and restarted by the console → reconnected, reconciled, whole.
 * - The browser's stream cut 20 times during a long reply → the page equals the backend's history.
 * - A subscriber that never reads while 10,000 events flow → console RSS stays within a bound.
 * - 200 malformed frames from a (fake) OpenCode event stream → skipped; valid events still arrive.
 * - 200 malformed frames from a fake stdio (ACP) agent in the middle of a turn → skipped; the turn
 *   completes, the agent is not restarted, and the session takes the next prompt.
 *
 * No assertion is on wall-clock time; pacing waits only decide *when* a fault is injected.
 */
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import type { Page } from "@playwright/test";
import type { Backend, Message, Snapshot } from "../lib/model";
import { test, expect, type Api } from "./fixtures/opencode";
import { authHeaders, type Stack } from "../testkit/opencode-stack";
import { malformedFrames, startFakeOpencode } from "../testkit/fake-opencode";
import { openSse } from "../testkit/sse";
import { SessionPage } from "./pages/session-page";

/** A small deterministic PRNG (mulberry32), so the "random" cut points are the same every run. */
function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface TimelineShape {
  /** Every message id in order. */
  messages: string[];
  /** Text blocks of assistant messages: [message id/block id, text] (`/api` block ids are per message). */
  texts: [string, string][];
}

const norm = (s: string) => s.replace(/\s+/g, " ").trim();

/** What the page shows: message ids in order, and the assistant text blocks. */
async function pageShape(page: Page): Promise<TimelineShape> {
  return page.evaluate(() => {
    const tl = document.querySelector('[data-testid="timeline"]')!;
    const messages = Array.from(tl.querySelectorAll('[data-testid="message"]')).map(
      (m) => m.getAttribute("data-message-id") ?? "",
    );
    const texts = Array.from(
      tl.querySelectorAll('[data-testid="message"][data-role="assistant"] [data-testid="block"][data-kind="text"]'),
    )
      .map(
        (b) =>
          [
            `${b.closest('[data-testid="message"]')?.getAttribute("data-message-id") ?? ""}/${b.getAttribute("data-block-id") ?? ""}`,
            (b.textContent ?? "").replace(/\s+/g, " ").trim(),
          ] as [string, string],
      )
      .filter(([, t]) => t !== "");
    return { messages, texts };
  });
}

function shapeOf(messages: Message[]): TimelineShape {
  return {
    messages: messages.map((m) => m.id),
    texts: messages
      .filter((m) => m.role === "assistant")
      .flatMap((m) =>
        m.blocks.flatMap((b) =>
          b.kind === "text" && b.text.trim() !== "" ? [[`${m.id}/${b.id}`, norm(b.text)] as [string, string]] : [],
        ),
      ),
  };
}

/** OpenCode's own history of a session, straight from its REST API (not through the console). */
async function opencodeShape(stack: Stack, sessionId: string): Promise<TimelineShape> {
  const oc = await stack.opencode();
  if (stack.contract === "api") return apiShape(oc, sessionId);
  const r = await fetch(`${oc.url}/session/${sessionId}/message`, { headers: oc.headers });
  expect(r.status).toBe(200);
  const items = (await r.json()) as {
    info: { id: string; role: string };
    parts: { id: string; type: string; text?: string; synthetic?: boolean }[];
  }[];
  return {
    messages: items.map((m) => m.info.id),
    texts: items
      .filter((m) => m.info.role === "assistant")
      .flatMap((m) =>
        m.parts.flatMap((p) =>
          p.type === "text" && !p.synthetic && (p.text ?? "").trim() !== ""
            ? [[`${m.info.id}/${p.id}`, norm(p.text ?? "")] as [string, string]]
            : [],
        ),
      ),
  };
}

/**
 * The same from the `/api` contract (`GET /api/session/:id/message`, newest first; the V1 routes do
 * not list what the `/api` runtime stored). Text blocks are an assistant message's `content` items.
 */
async function apiShape(
  oc: { url: string; headers: Record<string, string> },
  sessionId: string,
): Promise<TimelineShape> {
  const r = await fetch(`${oc.url}/api/session/${sessionId}/message?order=desc&limit=100`, { headers: oc.headers });
  expect(r.status).toBe(200);
  const items = (
    (await r.json()) as {
      data: { id: string; type: string; content?: { id: string; type: string; text?: string }[] }[];
    }
  ).data
    .filter((m) => ["user", "synthetic", "assistant", "compaction", "shell"].includes(m.type))
    .reverse();
  return {
    messages: items.map((m) => m.id),
    texts: items
      .filter((m) => m.type === "assistant")
      .flatMap((m) =>
        (m.content ?? []).flatMap((c) =>
          c.type === "text" && (c.text ?? "").trim() !== ""
            ? [[`${m.id}/${c.id}`, norm(c.text ?? "")] as [string, string]]
            : [],
        ),
      ),
  };
}

/**
 * How a console's timeline after a kill differs from OpenCode's history, or "whole". The console
 * keeps what it showed of the cut reply (docs/backends/opencode.md): OpenCode stores a text part's
 * text only when the part ends, and a killed server can lose the whole reply. So each stored text
 * must be a prefix of the console's, and the console may hold one message OpenCode lost.
 */
function coversCut(shown: TimelineShape, upstream: TimelineShape): string {
  let i = 0;
  for (const id of shown.messages) if (id === upstream.messages[i]) i++;
  if (i < upstream.messages.length || shown.messages.length > upstream.messages.length + 1)
    return `messages ${JSON.stringify(shown.messages)}, OpenCode's ${JSON.stringify(upstream.messages)}`;
  const byId = new Map(shown.texts);
  for (const [id, text] of upstream.texts)
    if (!byId.get(id)?.startsWith(text)) return `block ${id}: ${JSON.stringify(byId.get(id))}, OpenCode's ${text}`;
  return "whole";
}

/**
 * The page, the console's snapshot and OpenCode's own history agree: nothing missing, nothing twice
 * (after a kill, `cut`: the console may keep more of the cut reply, see coversCut).
 */
async function expectWhole(
  page: Page,
  api: Api,
  stack: Stack,
  sessionId: string,
  opts: { cut?: boolean } = {},
): Promise<TimelineShape> {
  const upstream = await opencodeShape(stack, sessionId);
  if (opts.cut) {
    await expect
      .poll(async () => coversCut(shapeOf((await api.snapshot(sessionId)).messages), upstream), { timeout: 20_000 })
      .toBe("whole");
    await expect.poll(async () => coversCut(await pageShape(page), upstream), { timeout: 20_000 }).toBe("whole");
  } else {
    await expect
      .poll(async () => shapeOf((await api.snapshot(sessionId)).messages), { timeout: 20_000 })
      .toEqual(upstream);
    await expect.poll(() => pageShape(page), { timeout: 20_000 }).toEqual(upstream);
  }
  const shown = await pageShape(page);
  expect(new Set(shown.messages).size, "no message twice").toBe(shown.messages.length);
  expect(new Set(shown.texts.map(([id]) => id)).size, "no block twice").toBe(shown.texts.length);
  return upstream;
}

/** Reads everything a raw HTTP/1.1 socket holds (de-chunked) until it closes or `ms` pass. */
function readRawSse(sock: net.Socket, ms: number): Promise<{ ended: boolean; bodyBytes: number; ids: number[] }> {
  return new Promise((resolve) => {
    let raw = Buffer.alloc(0);
    const finish = (ended: boolean) => {
      clearTimeout(timer);
      const headerEnd = raw.indexOf("\r\n\r\n");
      let pos = headerEnd + 4;
      const parts: Buffer[] = [];
      while (headerEnd >= 0 && pos < raw.length) {
        const eol = raw.indexOf("\r\n", pos);
        if (eol < 0) break;
        const size = parseInt(raw.subarray(pos, eol).toString("latin1"), 16);
        if (!Number.isFinite(size) || size === 0) break;
        parts.push(raw.subarray(eol + 2, Math.min(raw.length, eol + 2 + size)));
        pos = eol + 2 + size + 2;
      }
      const body = Buffer.concat(parts).toString("utf8");
      const ids = [...body.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
      resolve({ ended, bodyBytes: body.length, ids });
    };
    const timer = setTimeout(() => finish(false), ms);
    sock.on("data", (d: Buffer) => (raw = Buffer.concat([raw, d])));
    sock.once("close", () => finish(true));
    sock.resume();
  });
}

function rssKb(pid: number): number {
  const m = /^VmRSS:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
  return Number(m?.[1] ?? NaN);
}

test.describe("fault injection", () => {
  test("OpenCode SIGKILLed mid-turn and restarted: the console reconnects and the session is whole", {
    tag: "@api",
  }, async ({ page, api, stack }) => {
    const words = Array.from({ length: 120 }, (_, i) => `k${i}`);
    stack.model.enqueue({ text: words.join(" "), chunks: 120, delayMs: 100 });
    const s = await api.createSession("kill mid-turn");
    const sp = await SessionPage.open(page, stack.backendId, s.id);
    await sp.prompt("a long reply, then a crash");
    await expect(sp.assistantText().last()).toContainText("k15", { timeout: 30_000 });
    const pid = await stack.opencodePid();
    await stack.killOpencode();
    await expect(sp.connection).not.toHaveAttribute("data-state", "connected", { timeout: 15_000 });
    await expect(sp.connection).toHaveAttribute("data-state", "connected", { timeout: 45_000 });
    expect(await stack.opencodePid()).not.toBe(pid);
    await sp.waitStatus("idle");
    // The interrupted turn is shown as OpenCode kept it, with what the page showed of the cut reply.
    const before = await expectWhole(page, api, stack, s.id, { cut: true });
    const shown = (await pageShape(page)).texts.map(([, t]) => t).join(" ");
    expect(shown).toContain("k15");
    expect(shown).not.toContain(words.at(-1));
    // The cut reply says why it ended.
    await expect(page.getByTestId("message-error").last()).toContainText("OpenCode stopped during this reply");
    // And the session goes on.
    await sp.askWithReply(stack.model, "still there?", "alive after the crash", { timeout: 30_000 });
    const after = await expectWhole(page, api, stack, s.id, { cut: true });
    expect(after.texts.at(-1)?.[1]).toBe("alive after the crash");
    expect(after.messages.length).toBe(before.messages.length + 2);
  });

  test("the browser's stream cut 20 times during a long reply: the timeline equals the backend's history", {
    tag: "@api",
  }, async ({ page, api, stack }) => {
    const N = 300;
    const reply = Array.from({ length: N }, (_, i) => `w${i}`).join(" ");
    stack.model.enqueue({ text: reply, chunks: N, delayMs: 40 });
    const s = await api.createSession("stream cuts");
    const sp = new SessionPage(page);
    // The page's one live stream (shared by every tab of the browser; this tab holds it).
    let connections = 0;
    page.on("request", (r) => {
      if (new URL(r.url()).pathname === "/api/live") connections++;
    });
    await sp.goto(stack.backendId, s.id);
    await sp.prompt("a long reply, cut often");
    // 20 distinct cut points, drawn once from a seeded PRNG, in reply order.
    const rand = rng(20261122);
    const points = new Set<number>();
    while (points.size < 20) points.add(8 + Math.floor(rand() * (N - 60)));
    let midReply = 0;
    for (const point of [...points].sort((a, b) => a - b)) {
      await expect(sp.assistantText().last()).toContainText(`w${point} `, { timeout: 30_000 });
      const seen = connections;
      const shown = (await sp.assistantText().last().textContent()) ?? "";
      if (!shown.includes(`w${N - 1}`)) midReply++;
      // A click on the live badge drops the connection, as a network cut does.
      await sp.connection.click();
      // Each cut really opens a new connection (resuming every subscription from its seq) before the next one.
      await expect.poll(() => connections, { timeout: 15_000 }).toBeGreaterThan(seen);
      await expect(sp.connection).toHaveAttribute("data-state", "connected", { timeout: 15_000 });
    }
    test.info().annotations.push({
      type: "cuts",
      description: `20 cuts, ${midReply} while the reply was still streaming in the page`,
    });
    expect(midReply, "the first cuts are far from the end of the reply").toBeGreaterThan(0);
    await expect(sp.assistantText().last()).toHaveText(reply, { timeout: 60_000 });
    await sp.waitStatus("idle");
    const whole = await expectWhole(page, api, stack, s.id);
    expect(whole.texts.map(([, t]) => t)).toEqual([reply]);
  });

  test("a subscriber that never reads while 10,000 events flow is dropped, memory stays bounded, and it can resume", async ({
    api,
    stack,
    request,
  }) => {
    test.setTimeout(180_000);
    const pid = stack.console.child.pid!;
    const s = await api.createSession("never-reading subscriber");
    // Warm up the code paths (and the session channel) first, so the measurement is of the flow.
    stack.model.enqueue({ text: "warm up", chunks: 2, delayMs: 0 });
    await api.prompt(s.id, "warm up");
    await api.waitIdle(s.id);
    const eventsUrl = `${api.base(s.id)}/events`;
    const seq = (await api.snapshot(s.id)).seq;

    // A plain socket that sends the request and never reads a byte.
    const u = new URL(eventsUrl);
    const sock = net.connect(Number(u.port), u.hostname);
    sock.on("error", () => {});
    await new Promise<void>((r) => sock.once("connect", () => r()));
    sock.pause();
    sock.write(
      `GET ${u.pathname} HTTP/1.1\r\nHost: ${u.host}\r\nAuthorization: Bearer ${stack.token}\r\nAccept: text/event-stream\r\nLast-Event-ID: ${seq}\r\n\r\n`,
    );
    let closedByConsole = false;
    sock.once("close", () => (closedByConsole = true));
    // A normal subscriber counts what flows.
    const counter = await openSse(eventsUrl, { ...authHeaders(stack), "last-event-id": String(seq) });
    const rssBefore = rssKb(pid);

    // 10,000 small chunks (~400 bytes each, ~5.5 MB of frames: more than the 4 MB a subscriber may owe).
    const CHUNKS = 10_000;
    const piece = "lorem ipsum dolor sit amet ".repeat(15);
    // (Small usage numbers: a reply "longer than the output limit" would make OpenCode continue on its own.)
    stack.model.enqueue({
      text: piece.repeat(CHUNKS),
      chunks: CHUNKS,
      delayMs: 0,
      usage: { prompt: 100, completion: 100 },
    });
    await api.prompt(s.id, "flood");
    await counter
      .waitFor((evs) => evs.filter((e) => e.type === "block.delta").length >= CHUNKS - 100, 90_000)
      .catch((err: unknown) => {
        const types: Record<string, number> = {};
        for (const e of counter.events) types[e.type] = (types[e.type] ?? 0) + 1;
        console.log(
          "[faults] flood stalled:",
          JSON.stringify(types),
          JSON.stringify(stack.model.requests.map((r) => r.source)),
          stack.console.logs.slice(-10).join("\n"),
        );
        throw err;
      });
    await api.waitIdle(s.id, 60_000);
    const rssAfter = rssKb(pid);
    const deltas = counter.events.filter((e) => e.type === "block.delta").length;
    const lastSeq = counter.events.at(-1)!.seq;
    counter.close();

    // What the stuck socket was sent before the console dropped it (read only now).
    const got = await readRawSse(sock, 15_000);
    const growthMb = (rssAfter - rssBefore) / 1024;
    const note = `${deltas} deltas; stuck subscriber dropped after ${(got.bodyBytes / 1e6).toFixed(2)} MB / ${got.ids.length} events; console RSS ${Math.round(rssBefore / 1024)} → ${Math.round(rssAfter / 1024)} MB (+${growthMb.toFixed(0)} MB)`;
    test.info().annotations.push({ type: "memory", description: note });
    console.log(`[faults] ${note}`);

    expect(deltas).toBeGreaterThanOrEqual(CHUNKS - 100);
    // Dropped, not buffered: the console closed the stream short of the whole flow.
    expect(got.ended || closedByConsole, "the console closed the stuck stream").toBe(true);
    expect(got.ids.length).toBeLessThan(counter.events.length);
    expect(got.bodyBytes).toBeLessThan(6_000_000); // 4 MB queue + socket buffers
    // The stated bound (docs/security.md): the console's RSS grows by less than 256 MB over the flood.
    expect(growthMb).toBeLessThan(256);

    // It resumes with Last-Event-ID: it gets exactly the events it missed, or — when that backlog is
    // more than a subscriber may owe (here the finished 4 MB text block alone is) — stream.reset, and
    // the snapshot it reloads is whole.
    const resumeFrom = got.ids.at(-1)!;
    const resumed = await openSse(eventsUrl, { ...authHeaders(stack), "last-event-id": String(resumeFrom) });
    await resumed.waitFor(
      (evs) => evs.length > 0 && (evs[0]!.type === "stream.reset" || evs.at(-1)!.seq >= lastSeq),
      30_000,
    );
    resumed.close();
    const first = resumed.events[0]!;
    if (first.type === "stream.reset") {
      const snap = await api.snapshot(s.id);
      expect(snap.seq).toBeGreaterThanOrEqual(lastSeq);
      const texts = snap.messages.flatMap((m) => m.blocks.flatMap((b) => (b.kind === "text" ? [b.text] : [])));
      expect(
        texts.some((t) => t === piece.repeat(CHUNKS)),
        "the snapshot holds the whole reply",
      ).toBe(true);
    } else {
      const seqs = resumed.events.map((e) => e.seq);
      expect(seqs[0]).toBe(resumeFrom + 1);
      expect(seqs.every((n, i) => i === 0 || n === seqs[i - 1]! + 1)).toBe(true);
    }
    expect((await fetch(`${stack.url}/api/health`)).status).toBe(200);
    // The 4 MB session would only slow down later reconciles of every open session.
    await request.delete(api.base(s.id));
  });

  test("200 malformed frames from an OpenCode event stream are skipped; the valid ones arrive and the console stays up", async ({
    page,
    request,
    stack,
  }) => {
    const fake = await startFakeOpencode();
    const add = await request.post(`${stack.url}/api/backends`, {
      data: { kind: "opencode", label: "Malformed fake", config: { baseUrl: fake.url } },
    });
    expect(add.status()).toBe(201);
    const backendId = ((await add.json()) as { id: string }).id;
    try {
      await expect
        .poll(
          async () =>
            ((await (await request.get(`${stack.url}/api/backends/${backendId}`)).json()) as { status: string }).status,
          { timeout: 20_000 },
        )
        .toBe("ready");
      const sse = await openSse(
        `${stack.url}/api/backends/${backendId}/sessions/${fake.sessionId}/events`,
        authHeaders(stack),
      );
      const valid = Array.from({ length: 20 }, (_, i) => `valid part ${i}`);
      const bad = malformedFrames(fake.sessionId);
      const frames: (string | Buffer)[] = [fake.assistantMessage()];
      let malformed = 0;
      valid.forEach((text, i) => {
        frames.push(fake.textPart(`prt_fakepart${String(i).padStart(4, "0")}`, text));
        for (let k = 0; k < 10; k++) frames.push(bad[malformed++ % bad.length]!);
      });
      expect(malformed).toBe(200);
      fake.send(frames);

      const texts = (evs: typeof sse.events) =>
        evs.flatMap((e) => (e.type === "block.updated" && e.block.kind === "text" ? [e.block.text] : []));
      await sse.waitFor((evs) => texts(evs).includes(valid.at(-1)!), 30_000);
      sse.close();
      expect(texts(sse.events)).toEqual(valid);
      // Skipped, not fatal: the console never dropped and re-opened the stream, and is healthy.
      expect(fake.eventConnections).toBe(1);
      expect((await request.get(`${stack.url}/api/health`)).status()).toBe(200);
      expect(
        ((await (await request.get(`${stack.url}/api/backends/${backendId}`)).json()) as { status: string }).status,
      ).toBe("ready");
      expect(stack.console.child.exitCode).toBeNull();
      // The session is usable: its snapshot and its page show every valid part.
      const snap = (await (
        await request.get(`${stack.url}/api/backends/${backendId}/sessions/${fake.sessionId}/snapshot`)
      ).json()) as Snapshot;
      expect(snap.messages.flatMap((m) => m.blocks.flatMap((b) => (b.kind === "text" ? [b.text] : [])))).toEqual(valid);
      const sp = await SessionPage.open(page, backendId, fake.sessionId);
      await expect(sp.assistantText()).toHaveText(valid);
    } finally {
      await request.delete(`${stack.url}/api/backends/${backendId}`);
      await fake.close();
    }
  });

  test("200 malformed frames from a fake stdio agent mid-turn are skipped; the session stays usable", async ({
    page,
    request,
    stack,
  }) => {
    // The protocol-faithful fake ACP agent; its "flood" turn writes 20 valid chunks with 10 malformed
    // frames after each: not JSON, truncated JSON, non-objects, non-JSON-RPC objects, a wrong version,
    // responses to requests never sent, unknown methods, bad session/update params, an unknown
    // session, invalid UTF-8, and requests for methods the console does not have.
    const agent = path.resolve("server/backends/acp/testing/fake-agent.mjs");
    const add = await request.post(`${stack.url}/api/backends`, {
      data: {
        kind: "acp",
        label: "Malformed stdio agent",
        config: { command: [process.execPath, agent], cwd: stack.workspace },
      },
    });
    expect(add.status()).toBe(201);
    const backendId = ((await add.json()) as { id: string }).id;
    const backendUrl = `${stack.url}/api/backends/${backendId}`;
    const backend = async () => (await (await request.get(backendUrl)).json()) as Backend;
    try {
      await expect.poll(async () => (await backend()).status, { timeout: 20_000 }).toBe("ready");
      const pid = (await backend()).process?.pid;
      const created = await request.post(`${backendUrl}/sessions`, { data: { title: "malformed stdio frames" } });
      expect(created.status()).toBe(201);
      const s = (await created.json()) as { id: string };
      const sp = await SessionPage.open(page, backendId, s.id);
      await sp.prompt("flood");
      const valid = Array.from({ length: 20 }, (_, i) => `valid part ${i}`);
      await expect(sp.assistantText().last()).toContainText(valid.at(-1)!, { timeout: 30_000 });
      await sp.waitStatus("idle");

      // Exactly the valid chunks, in order; nothing from the malformed frames leaked into the timeline.
      const snap = (await (await request.get(`${backendUrl}/sessions/${s.id}/snapshot`)).json()) as Snapshot;
      const texts = snap.messages
        .filter((m) => m.role === "assistant")
        .flatMap((m) => m.blocks.flatMap((b) => (b.kind === "text" ? [b.text] : [])));
      expect(texts).toEqual([valid.map((v) => `${v}\n`).join("")]);
      const shown = (await sp.timeline.textContent()) ?? "";
      for (const leak of ["WRONG VERSION", "WRONG SESSION", "not json-rpc", "alert(1)", "invalid utf-8"])
        expect(shown).not.toContain(leak);
      expect(snap.session.status).toBe("idle");

      // Skipped, not fatal: the same agent process, logged skips, a healthy console.
      const b = await backend();
      expect(b.status).toBe("ready");
      expect(b.process).toMatchObject({ state: "running", restarts: 0 });
      expect(b.process?.pid).toBe(pid);
      const logs = ((await (await request.get(`${backendUrl}/logs`)).json()) as { lines: string[] }).lines;
      expect(logs.filter((l) => l.startsWith("[stdout skipped: not JSON]")).length).toBeGreaterThanOrEqual(20);
      expect(logs.some((l) => l.startsWith("[stdout skipped: not a JSON object]"))).toBe(true);
      expect((await request.get(`${stack.url}/api/health`)).status()).toBe(200);
      expect(stack.console.child.exitCode).toBeNull();

      // The session takes the next prompt.
      await sp.ask("hello", "Hello from the fake agent.", { timeout: 30_000 });
      expect(await sp.messages("user").count()).toBe(2);
    } finally {
      await request.delete(backendUrl);
    }
  });
});
