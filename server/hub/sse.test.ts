import http from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { encodeFrame, sseResponse, sseToNode, type SseSink } from "./sse";

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

describe("sseToNode (a Node response)", () => {
  async function serve(maxQueueBytes: number) {
    const state: { sink?: SseSink; cleaned: boolean } = { cleaned: false };
    const server = http.createServer((_req, res) =>
      sseToNode(
        res,
        {
          maxQueueBytes,
          heartbeatMs: 60_000,
          open: (s) => {
            state.sink = s;
            return () => void (state.cleaned = true);
          },
        },
        { "x-extra": "1" },
      ),
    );
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const close = () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      });
    return { url, state, close };
  }

  it("sends the event-stream headers with the given ones, frames in order, and ends on close()", async () => {
    const s = await serve(1_000_000);
    try {
      const res = await fetch(s.url);
      expect(res.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
      expect(res.headers.get("x-extra")).toBe("1");
      s.state.sink!.write(encodeFrame(1, { a: 1 }));
      s.state.sink!.write(encodeFrame(2, { a: 2 }));
      s.state.sink!.close();
      expect(await res.text()).toBe('retry: 1000\n\nid: 1\ndata: {"a":1}\n\nid: 2\ndata: {"a":2}\n\n');
      expect(s.state.cleaned).toBe(true);
    } finally {
      await s.close();
    }
  });

  it("drops a consumer that stopped reading once it owes more than the bound", async () => {
    const s = await serve(1_000_000);
    try {
      // A client that reads the headers and then nothing: the socket's buffers fill, then the response's.
      const socket = await new Promise<import("node:net").Socket>((resolve) => {
        const req = http.get(s.url, (res) => {
          res.pause();
          resolve(res.socket);
        });
        req.end();
      });
      let ok = true;
      for (let i = 0; i < 2000 && ok; i++) {
        ok = s.state.sink!.write(frame(100_000));
        await tick();
      }
      expect(ok).toBe(false);
      expect(s.state.sink!.closed).toBe(true);
      expect(s.state.cleaned).toBe(true);
      socket.destroy();
    } finally {
      await s.close();
    }
  });

  it("runs the cleanup when the client goes away", async () => {
    const s = await serve(1_000_000);
    try {
      const ac = new AbortController();
      await fetch(s.url, { signal: ac.signal });
      ac.abort();
      for (let i = 0; i < 200 && !s.state.cleaned; i++) await new Promise((r) => setTimeout(r, 5));
      expect(s.state.cleaned).toBe(true);
      expect(s.state.sink!.closed).toBe(true);
    } finally {
      await s.close();
    }
  });
});
