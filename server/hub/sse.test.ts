import { describe, expect, it } from "vitest";
import { encodeFrame, sseResponse, type SseSink } from "./sse";

function open(maxQueueBytes: number) {
  let sink: SseSink | undefined;
  const res = sseResponse({
    maxQueueBytes,
    heartbeatMs: 60_000,
    open: (s) => {
      sink = s;
      return () => {};
    },
  });
  return { sink: sink!, reader: res.body!.getReader() };
}

const frame = (bytes: number) => encodeFrame(1, { pad: "x".repeat(bytes) });
const tick = () => new Promise((r) => setTimeout(r, 0));

describe("sseResponse queue bound", () => {
  it("drops a consumer that owes more than the bound", async () => {
    const { sink } = open(100_000);
    let ok = true;
    for (let i = 0; i < 200 && ok; i++) {
      ok = sink.write(frame(1000));
      await tick();
    }
    expect(ok).toBe(false);
    expect(sink.closed).toBe(true);
  });

  it("delivers a frame bigger than the bound to a consumer that is caught up", async () => {
    const { sink, reader } = open(100_000);
    await reader.read(); // retry:
    expect(sink.write(frame(300_000))).toBe(true);
    await tick();
    const { value } = await reader.read();
    expect(value!.byteLength).toBeGreaterThan(300_000);
    expect(sink.closed).toBe(false);
    // …but not to one that is behind.
    for (let i = 0; i < 80; i++) sink.write(frame(1000));
    await tick();
    expect(sink.write(frame(300_000))).toBe(false);
  });

  it("tells the channel how much backlog it may replay", () => {
    expect(open(4_000_000).sink.replayBudget).toBeLessThan(4_000_000);
  });
});

describe("sseResponse idle end", () => {
  it("ends a stream that carried nothing but heartbeats for idleMs, and runs its cleanup", async () => {
    let sink: SseSink | undefined;
    let cleaned = false;
    const res = sseResponse({
      heartbeatMs: 5,
      idleMs: 20,
      open: (s) => {
        sink = s;
        return () => void (cleaned = true);
      },
    });
    const reader = res.body!.getReader();
    sink!.write(frame(10));
    for (let r = await reader.read(); !r.done; r = await reader.read());
    expect(sink!.closed).toBe(true);
    expect(cleaned).toBe(true);
  });

  it("keeps a stream that goes on carrying frames open past idleMs, and ends it once they stop", async () => {
    let sink: SseSink | undefined;
    const res = sseResponse({
      heartbeatMs: 10,
      idleMs: 200,
      open: (s) => {
        sink = s;
        return () => {};
      },
    });
    const reader = res.body!.getReader();
    const started = performance.now();
    while (performance.now() - started < 500) {
      expect(sink!.write(frame(10))).toBe(true);
      await reader.read();
      await new Promise((r) => setTimeout(r, 3));
    }
    expect(sink!.closed).toBe(false);
    for (let r = await reader.read(); !r.done; r = await reader.read());
    expect(sink!.closed).toBe(true);
  });

  it("keeps a stream open without idleMs", async () => {
    let sink: SseSink | undefined;
    const res = sseResponse({
      heartbeatMs: 5,
      open: (s) => {
        sink = s;
        return () => {};
      },
    });
    const reader = res.body!.getReader();
    let heartbeats = 0;
    const text = new TextDecoder();
    while (heartbeats < 5) {
      const { value } = await reader.read();
      if (value && text.decode(value).includes("heartbeat")) heartbeats++;
    }
    expect(sink!.closed).toBe(false);
    sink!.close();
  });
});
