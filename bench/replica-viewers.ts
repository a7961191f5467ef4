/**
 * 1,000 subscribers over two replicas (issue 31), through the real HTTP route of two built consoles
 * in replica mode (testkit/replica-stack.ts: real PostgreSQL, Redis, and the fake zot on the
 * scripted model): one streaming session, its events read by
 *   - the baseline, measured in the same run: every subscriber on the replica that runs the agent;
 *   - split: half on each replica (the other replica forwards its subscribers' streams to the owner).
 * Reported: delivery spread (each delta's arrival after its first arrival anywhere) p50/p99, per
 * replica, and each replica's RSS (the console's processes, not the agents it runs): idle before
 * any subscriber, with the subscribers connected (before the turn streams), and at its peak while
 * streaming. What the subscribers add (connected − idle) is the figure docs/design.md budgets, the
 * same as the single-process bench's (./viewers.ts).
 */
import { createParser } from "eventsource-parser";
import type { Snapshot } from "../lib/model";
import { consoleRssMb } from "./proc";
import { REPLICA_ZOT, type ReplicaName, type ReplicaStack, startReplicaStack } from "../testkit/replica-stack";

/** One replica's RSS in one placement (MB). */
export interface ReplicaRss {
  /** Before any subscriber of the turn connected. */
  idle: number;
  /** Every subscriber connected, before the turn streams: what the connections themselves hold. */
  connected: number;
  /** The highest sample while the turn streamed to them. */
  peak: number;
}

export interface ReplicaViewerFigures {
  subscribers: number;
  deltas: number;
  baseline: { p50Ms: number; p99Ms: number; ownerRssMb: number; owner: ReplicaRss };
  split: {
    p50Ms: number;
    p99Ms: number;
    p99OwnerMs: number;
    p99PeerMs: number;
    ownerRssMb: number;
    peerRssMb: number;
    owner: ReplicaRss;
    peer: ReplicaRss;
  };
}

function percentile(xs: number[], p: number): number {
  if (!xs.length) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * p))]!;
}

interface Sub {
  on: ReplicaName;
  arrivals: Map<number, number>;
  ready: Promise<void>;
  close(): void;
}

function subscribe(stack: ReplicaStack, on: ReplicaName, sessionId: string): Sub {
  const ac = new AbortController();
  let ready!: () => void;
  const sub: Sub = { on, arrivals: new Map(), ready: new Promise((r) => (ready = r)), close: () => ac.abort() };
  const parser = createParser({
    onEvent(ev) {
      if (ev.id && ev.data.includes('"block.delta"')) sub.arrivals.set(Number(ev.id), performance.now());
    },
  });
  void (async () => {
    try {
      const res = await fetch(`${stack.replicas[on].url}/api/backends/${REPLICA_ZOT}/sessions/${sessionId}/events`, {
        headers: { ...stack.headers, accept: "text/event-stream" },
        signal: ac.signal,
      });
      ready();
      const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        parser.feed(value);
      }
    } catch {
      ready();
    }
  })();
  return sub;
}

async function turn(stack: ReplicaStack, owner: ReplicaName, placement: ReplicaName[], deltas: number) {
  const base = `${stack.replicas[owner].url}/api/backends/${REPLICA_ZOT}/sessions`;
  const created = await fetch(base, {
    method: "POST",
    headers: { ...stack.headers, "content-type": "application/json" },
    body: JSON.stringify({ title: "bench: replicas" }),
  });
  const session = (await created.json()) as { id: string };
  const rss = (r: ReplicaName) => consoleRssMb(stack.replicas[r].child.pid);
  const idle: Record<ReplicaName, number> = { A: rss("A"), B: rss("B") };
  const subs = placement.map((on) => subscribe(stack, on, session.id));
  await Promise.all(subs.map((s) => s.ready));
  await new Promise((r) => setTimeout(r, 1000));
  const connected: Record<ReplicaName, number> = { A: rss("A"), B: rss("B") };
  const peak: Record<ReplicaName, number> = { ...connected };
  const sample = () => {
    for (const r of ["A", "B"] as const) peak[r] = Math.max(peak[r], rss(r));
  };
  const sampler = setInterval(sample, 200);
  const words = Array.from({ length: deltas }, (_, i) => `w${i}`).join(" ");
  stack.model.enqueue({ text: words, chunks: deltas, delayMs: 20 });
  await fetch(`${base}/${session.id}/prompt`, {
    method: "POST",
    headers: { ...stack.headers, "content-type": "application/json" },
    body: JSON.stringify({ parts: [{ type: "text", text: "stream to everyone" }] }),
  });
  const deadline = Date.now() + 120_000;
  for (;;) {
    const snap = (await (await fetch(`${base}/${session.id}/snapshot`, { headers: stack.headers })).json()) as Snapshot;
    const text = snap.messages.at(-1)?.blocks.find((b) => b.kind === "text");
    if (snap.session.status === "idle" && text && text.kind === "text" && text.text === words) break;
    if (Date.now() > deadline) throw new Error("the bench turn did not end");
    await new Promise((r) => setTimeout(r, 250));
  }
  await new Promise((r) => setTimeout(r, 1000));
  clearInterval(sampler);
  sample();
  for (const s of subs) s.close();
  const first = new Map<number, number>();
  for (const s of subs) for (const [seq, t] of s.arrivals) first.set(seq, Math.min(first.get(seq) ?? Infinity, t));
  const spread = (which?: ReplicaName) =>
    subs.filter((s) => !which || s.on === which).flatMap((s) => [...s.arrivals].map(([seq, t]) => t - first.get(seq)!));
  const of = (r: ReplicaName): ReplicaRss => ({ idle: idle[r], connected: connected[r], peak: peak[r] });
  return { spread, peak, of };
}

export async function replicaViewersBench(subscribers = 1000, deltas = 200): Promise<ReplicaViewerFigures> {
  const stack = await startReplicaStack();
  try {
    const owner = await stack.waitForOwner();
    const peer: ReplicaName = owner === "A" ? "B" : "A";
    const all = await turn(
      stack,
      owner,
      Array.from({ length: subscribers }, () => owner),
      deltas,
    );
    const split = await turn(
      stack,
      owner,
      Array.from({ length: subscribers }, (_, i) => (i % 2 ? peer : owner)),
      deltas,
    );
    return {
      subscribers,
      deltas,
      baseline: {
        p50Ms: percentile(all.spread(), 0.5),
        p99Ms: percentile(all.spread(), 0.99),
        ownerRssMb: all.peak[owner],
        owner: all.of(owner),
      },
      split: {
        p50Ms: percentile(split.spread(), 0.5),
        p99Ms: percentile(split.spread(), 0.99),
        p99OwnerMs: percentile(split.spread(owner), 0.99),
        p99PeerMs: percentile(split.spread(peer), 0.99),
        ownerRssMb: split.peak[owner],
        peerRssMb: split.peak[peer],
        owner: split.of(owner),
        peer: split.of(peer),
      },
    };
  } finally {
    await stack.stop();
  }
}
