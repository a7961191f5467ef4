/**
 * Many viewers, through the real HTTP route of the built console (`GET …/sessions/:id/events` on
 * `next start`, served by its Node server before Next's request pipeline: server/direct-streams.ts),
 * never in-process:
 *   - 1,000 concurrent SSE subscribers on one streaming session: console RSS and delivery p99;
 *   - 50 sessions streaming at once: console CPU per 1,000 events delivered;
 *   - relay throughput through the console (replaying a session's held events) against a raw Node SSE
 *     pipe writing the same frames, in the same run.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createParser } from "eventsource-parser";
import { waitTurn } from "./browser";
import { cpuMs, rssMb } from "./proc";
import { streamingTurn, type LongStack } from "./long-stack";

export interface ViewerFigures {
  subscribers: number;
  rssMbIdle: number;
  rssMbPeak: number;
  /** With every subscriber connected, before the turn streams: what the connections themselves hold. */
  rssMbConnected: number;
  /** Delay of each delivery after the first subscriber got the same event (fan-out spread). */
  deliveryP50Ms: number;
  deliveryP99Ms: number;
  eventsPerSubscriber: number;
  sessions: number;
  eventsDelivered: number;
  cpuMsPer1000Events: number;
  relayNextEventsPerSec: number;
  relayRawEventsPerSec: number;
  relayEvents: number;
}

interface Subscriber {
  /** seq → arrival time (performance.now()) of block.delta events. */
  arrivals: Map<number, number>;
  count: number;
  /** The first event id (seq) this subscriber received. */
  firstSeq?: number;
  ready: Promise<void>;
  close(): void;
}

function subscribe(
  stack: LongStack,
  sessionId: string,
  opts: { after?: number; onText?: (s: string) => void } = {},
): Subscriber {
  const ac = new AbortController();
  let resolveReady!: () => void;
  const sub: Subscriber = {
    arrivals: new Map(),
    count: 0,
    ready: new Promise((r) => (resolveReady = r)),
    close: () => ac.abort(),
  };
  const parser = createParser({
    onEvent(ev) {
      sub.count++;
      if (sub.firstSeq === undefined && ev.id && /^\d+$/.test(ev.id)) sub.firstSeq = Number(ev.id);
      if (ev.data.includes('"block.delta"') && ev.id) sub.arrivals.set(Number(ev.id), performance.now());
    },
  });
  void (async () => {
    try {
      const res = await fetch(
        `${stack.console.url}/api/backends/${stack.backendId}/sessions/${sessionId}/events${opts.after !== undefined ? `?after=${opts.after}` : ""}`,
        {
          headers: { ...stack.headers, accept: "text/event-stream" },
          signal: ac.signal,
        },
      );
      resolveReady();
      const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        opts.onText?.(value);
        parser.feed(value);
      }
    } catch {
      resolveReady();
    }
  })();
  return sub;
}

const waitIdle = (stack: LongStack, sessionId: string) => waitTurn(stack, sessionId);

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    p,
    new Promise<T>(
      (_, reject) => (timer = setTimeout(() => reject(new Error(`${what} took over ${ms / 1000} s`)), ms)),
    ),
  ]).finally(() => clearTimeout(timer));
}

function percentile(xs: number[], p: number): number {
  if (!xs.length) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * p))]!;
}

async function manySubscribers(stack: LongStack, n: number) {
  const session = await stack.createSession("bench: many viewers");
  const rssIdle = rssMb(stack.console.child.pid!);
  const subs: Subscriber[] = [];
  for (let i = 0; i < n; i++) subs.push(subscribe(stack, session.id));
  await withTimeout(Promise.all(subs.map((s) => s.ready)), 60_000, "subscribers connecting");
  await new Promise((r) => setTimeout(r, 1000));
  const connected = rssMb(stack.console.child.pid!);
  let peak = connected;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(stack.console.child.pid!))), 200);
  stack.model.enqueue(streamingTurn(200, 50, "bench-viewers"));
  await stack.prompt(session.id, "Stream to everyone (bench-viewers)");
  await waitIdle(stack, session.id);
  await new Promise((r) => setTimeout(r, 1000));
  clearInterval(sampler);
  const first = new Map<number, number>();
  for (const s of subs) for (const [seq, t] of s.arrivals) first.set(seq, Math.min(first.get(seq) ?? Infinity, t));
  const delays: number[] = [];
  for (const s of subs) for (const [seq, t] of s.arrivals) delays.push(t - first.get(seq)!);
  const perSub = subs.reduce((a, s) => a + s.arrivals.size, 0) / subs.length;
  for (const s of subs) s.close();
  return { rssIdle, connected, peak, p50: percentile(delays, 0.5), p99: percentile(delays, 0.99), perSub };
}

async function manySessions(stack: LongStack, n: number) {
  const sessions = await Promise.all(Array.from({ length: n }, (_, i) => stack.createSession(`bench: stream ${i}`)));
  const subs = sessions.map((s) => subscribe(stack, s.id));
  await withTimeout(Promise.all(subs.map((s) => s.ready)), 60_000, "subscribers connecting");
  await new Promise((r) => setTimeout(r, 500));
  for (let i = 0; i < n; i++) stack.model.enqueue(streamingTurn(100, 50, `bench-many-${i}-end`));
  const before = subs.reduce((a, s) => a + s.count, 0);
  const cpu0 = cpuMs(stack.console.child.pid!);
  await Promise.all(sessions.map((s, i) => stack.prompt(s.id, `Stream please (bench-many-${i}-end)`)));
  await Promise.all(sessions.map((s) => waitIdle(stack, s.id)));
  await new Promise((r) => setTimeout(r, 500));
  const cpu = cpuMs(stack.console.child.pid!) - cpu0;
  const events = subs.reduce((a, s) => a + s.count, 0) - before;
  for (const s of subs) s.close();
  return { events, cpuPer1000: (cpu / Math.max(1, events)) * 1000 };
}

/** Replays a session's held events through the console, then the same bytes through a raw Node SSE server. */
async function relay(stack: LongStack) {
  const session = await stack.createSession("bench: relay");
  // A subscriber from the start, so the session's channel holds every event of the turn.
  const watcher = subscribe(stack, session.id);
  await withTimeout(watcher.ready, 30_000, "relay subscriber connecting");
  stack.model.enqueue(streamingTurn(6000, 1000, "bench-relay"));
  await stack.prompt(session.id, "Stream fast (bench-relay)");
  await waitIdle(stack, session.id);
  // The watcher stays subscribed until the end, so the channel (and its log) is not evicted.
  const snap = (await (await stack.api(`/api/backends/${stack.backendId}/sessions/${session.id}/snapshot`)).json()) as {
    seq: number;
  };
  const newest = snap.seq;
  // Seqs are not numbered from 0 (a channel's numbering belongs to its incarnation, and `?after=0`
  // would only get `stream.reset`): replay from just before the first event the watcher saw.
  if (watcher.firstSeq === undefined) throw new Error("the relay watcher received no event");
  const after = watcher.firstSeq - 1;
  const timed = async (url: string, headers: Record<string, string>) => {
    let text = "";
    let count = 0;
    let end = false;
    const parser = createParser({
      onEvent: (ev) => {
        count++;
        // The replay is over at the newest held event; a reset means nothing was replayed.
        if (ev.id === String(newest) || ev.data.includes('"stream.reset"')) end = true;
      },
    });
    const t0 = performance.now();
    const ac = new AbortController();
    const timer = setTimeout(() => ac.abort(), 30_000);
    try {
      const res = await fetch(url, { headers, signal: ac.signal });
      const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
      while (!end) {
        const { done, value } = await reader.read();
        if (done) break;
        text += value;
        parser.feed(value);
      }
      await reader.cancel();
    } catch {
      // timed out: count what arrived
    } finally {
      clearTimeout(timer);
    }
    if (text.includes('"stream.reset"'))
      throw new Error("the relay replay answered stream.reset instead of the held events");
    return { ms: performance.now() - t0, text, count };
  };
  const url = `${stack.console.url}/api/backends/${stack.backendId}/sessions/${session.id}/events?after=${after}`;
  await timed(url, stack.headers); // warm-up
  const first = await timed(url, stack.headers);
  const frames = first.text;
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.end(frames);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const rawUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  await timed(rawUrl, {});
  // Five runs each, alternating, and the median of each: one replay takes milliseconds, so a single
  // run is at the mercy of whatever else the two cores are doing.
  const nextRates: number[] = [(first.count / first.ms) * 1000];
  const rawRates: number[] = [];
  for (let i = 0; i < 5; i++) {
    const r = await timed(rawUrl, {});
    rawRates.push((r.count / r.ms) * 1000);
    if (i < 4) {
      const n = await timed(url, stack.headers);
      nextRates.push((n.count / n.ms) * 1000);
    }
  }
  server.close();
  watcher.close();
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const next = { count: first.count };
  return { events: next.count, nextPerSec: median(nextRates), rawPerSec: median(rawRates) };
}

export async function viewersBench(
  stack: LongStack,
  opts: { subscribers?: number; sessions?: number } = {},
): Promise<ViewerFigures> {
  const subscribers = opts.subscribers ?? 1000;
  const sessions = opts.sessions ?? 50;
  console.log(`viewers: ${subscribers.toLocaleString("en-US")} subscribers on one streaming session…`);
  const many = await manySubscribers(stack, subscribers);
  console.log(`viewers: ${sessions} sessions streaming at once…`);
  const busy = await manySessions(stack, sessions);
  console.log("viewers: relay through the console vs a raw pipe…");
  const r = await relay(stack);
  return {
    subscribers,
    rssMbIdle: many.rssIdle,
    rssMbPeak: many.peak,
    rssMbConnected: many.connected,
    deliveryP50Ms: many.p50,
    deliveryP99Ms: many.p99,
    eventsPerSubscriber: many.perSub,
    sessions,
    eventsDelivered: busy.events,
    cpuMsPer1000Events: busy.cpuPer1000,
    relayNextEventsPerSec: r.nextPerSec,
    relayRawEventsPerSec: r.rawPerSec,
    relayEvents: r.events,
  };
}
