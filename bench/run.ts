/**
 * `npm run bench`: measures the event relay and the reducer against baselines measured in the same
 * run, and prints ratios (SPEC.md §9). No assertion on wall-clock time anywhere in the tests.
 *
 *   relay:   events published into a hub channel → SSE over HTTP → parsed by a client,
 *            vs. a raw Node SSE pipe writing the same frames.
 *   reducer: 1,000 text deltas applied to a 5,000-message / 20,000-block session,
 *            vs. the same deltas applied to a plain string (the floor).
 */
import http from "node:http";
import { Readable } from "node:stream";
import type { AddressInfo } from "node:net";
import { createParser } from "eventsource-parser";
import type { Message, Session, TimelineEvent } from "../lib/model";
import { reducerBench } from "./reducer";
import { SessionChannel } from "../server/hub/session-channel";
import { sseResponse } from "../server/hub/sse";

const N = Number(process.env.BENCH_EVENTS ?? 50_000);
const session: Session = { id: "s", backendId: "b", title: "bench", createdAt: 0, updatedAt: 0, status: "busy" };
const delta = (i: number): TimelineEvent => ({ type: "block.delta", messageId: "m", blockId: "p", field: "text", delta: `token${i} ` });

async function consume(port: number, path: string, expected: number): Promise<{ ms: number; latencies: number[] }> {
  const t0 = performance.now();
  const res = await fetch(`http://127.0.0.1:${port}${path}`);
  let count = 0;
  const latencies: number[] = [];
  const parser = createParser({
    onEvent(ev) {
      count++;
      const sent = (JSON.parse(ev.data) as { t?: number }).t;
      if (sent) latencies.push(performance.now() - sent);
    },
  });
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  while (count < expected) {
    const { done, value } = await reader.read();
    if (done) break;
    parser.feed(value);
  }
  await reader.cancel();
  return { ms: performance.now() - t0, latencies };
}

async function rawPipe(): Promise<number> {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    let i = 0;
    const pump = () => {
      while (i < N) {
        const ev = { ...delta(i), seq: i + 1 };
        if (!res.write(`id: ${i + 1}\ndata: ${JSON.stringify(ev)}\n\n`)) {
          i++;
          res.once("drain", pump);
          return;
        }
        i++;
      }
    };
    pump();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { ms } = await consume((server.address() as AddressInfo).port, "/", N);
  server.close();
  return (N / ms) * 1000;
}

function channelServer(ch: SessionChannel) {
  return http.createServer((req, res) => {
    const ac = new AbortController();
    req.on("close", () => ac.abort());
    const response = sseResponse({ signal: ac.signal, open: (sink) => ch.subscribe(sink, undefined), maxQueueBytes: 64 * 1024 * 1024 });
    res.writeHead(200, Object.fromEntries(response.headers));
    Readable.fromWeb(response.body as import("node:stream/web").ReadableStream).pipe(res);
  });
}

async function relay(): Promise<number> {
  const m: Message = { id: "m", sessionId: "s", role: "assistant", createdAt: 1, blocks: [{ id: "p", kind: "text", text: "" }] };
  const ch = new SessionChannel("b", "s", { session, messages: [m], interrupts: [], todos: [] }, { capacity: 10_000 });
  const server = channelServer(ch);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  const done = consume(port, "/", N);
  await new Promise((r) => setTimeout(r, 100));
  const t0 = performance.now();
  for (let i = 0; i < N; i++) {
    ch.publish(delta(i));
    if (i % 500 === 0) await new Promise((r) => setImmediate(r));
  }
  await done;
  const ms = performance.now() - t0;
  server.close();
  return (N / ms) * 1000;
}

/** p99 added latency at a steady 1,000 events/s through the relay. */
async function relayLatency(): Promise<{ p50: number; p99: number }> {
  const m: Message = { id: "m", sessionId: "s", role: "assistant", createdAt: 1, blocks: [{ id: "p", kind: "text", text: "" }] };
  const ch = new SessionChannel("b", "s", { session, messages: [m], interrupts: [], todos: [] });
  const server = channelServer(ch);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const count = 2000;
  const done = consume((server.address() as AddressInfo).port, "/", count);
  await new Promise((r) => setTimeout(r, 100));
  for (let i = 0; i < count; i++) {
    // The timestamp rides in the error message field so the client can measure end-to-end delay.
    ch.publish({ type: "error", message: "x", code: String(i), ...{ t: performance.now() } } as TimelineEvent);
    if (i % 10 === 9) await new Promise((r) => setTimeout(r, 10));
  }
  const { latencies } = await done;
  server.close();
  latencies.sort((a, b) => a - b);
  return { p50: latencies[Math.floor(latencies.length * 0.5)]!, p99: latencies[Math.floor(latencies.length * 0.99)]! };
}

async function main() {
  console.log(`Switchboard bench — ${N.toLocaleString()} events, node ${process.version}\n`);
  await rawPipe(); // warm-up
  const raw = await rawPipe();
  const hub = await relay();
  console.log(`relay throughput   raw SSE pipe ${Math.round(raw).toLocaleString()} ev/s · hub relay ${Math.round(hub).toLocaleString()} ev/s · ratio ${(hub / raw).toFixed(2)} (budget ≥ 0.50)`);
  const lat = await relayLatency();
  console.log(`relay latency      at 1,000 ev/s: p50 ${lat.p50.toFixed(2)} ms · p99 ${lat.p99.toFixed(2)} ms (budget p99 < 5 ms)`);
  const r = reducerBench();
  const us = (ms: number) => `${(ms * 1000).toFixed(2)} µs`;
  console.log(
    `reducer per delta  apply (hub): 100 msgs ${us(r.at100.single)} · 5,000 msgs ${us(r.at5000.single)} · ratio ${(r.at5000.single / r.at100.single).toFixed(2)}`,
  );
  console.log(
    `                   frame (browser, coalesced): 100 msgs ${us(r.at100.frame)} · 5,000 msgs ${us(r.at5000.frame)} · ratio ${(r.at5000.frame / r.at100.frame).toFixed(2)}`,
  );
}

void main();
