import { describe, expect, it } from "vitest";
import { contentLengthFraming, ndjsonFraming, type Framing } from "./framing";
import { JsonRpcClosedError, JsonRpcError, JsonRpcPeer, JsonRpcTimeoutError } from "./json-rpc";

const enc = new TextEncoder();
const dec = new TextDecoder();

/** Two peers on crossed pipes (as an adapter and an agent on stdio). */
function pair(framing: Framing, opts: { timeoutMs?: number } = {}) {
  const aToB = new TransformStream<Uint8Array, Uint8Array>();
  const bToA = new TransformStream<Uint8Array, Uint8Array>();
  const skipped: string[] = [];
  const a = new JsonRpcPeer({
    readable: bToA.readable,
    writable: aToB.writable,
    framing,
    onSkip: (r) => skipped.push(r),
    ...opts,
  });
  const b = new JsonRpcPeer({ readable: aToB.readable, writable: bToA.writable, framing });
  return { a, b, skipped };
}

/** A peer talking to a raw, scripted other side. */
function raw(framing: Framing) {
  const toPeer = new TransformStream<Uint8Array, Uint8Array>();
  const fromPeer = new TransformStream<Uint8Array, Uint8Array>();
  const skipped: string[] = [];
  const peer = new JsonRpcPeer({
    readable: toPeer.readable,
    writable: fromPeer.writable,
    framing,
    onSkip: (r) => skipped.push(r),
  });
  const writer = toPeer.writable.getWriter();
  const out = fromPeer.readable.pipeThrough(framing.decoder()).getReader();
  return {
    peer,
    skipped,
    send: (text: string) => writer.write(enc.encode(text)),
    next: async () => (await out.read()).value,
    end: () => writer.close(),
  };
}

describe("JsonRpcPeer", () => {
  for (const framing of [ndjsonFraming(), contentLengthFraming()]) {
    it(`requests, server→client requests and notifications in both directions (${framing.name})`, async () => {
      const { a, b } = pair(framing);
      const seen: unknown[] = [];
      b.onRequest("sum", (p) => (p as number[]).reduce((x, y) => x + y, 0));
      b.onNotification("log", (p) => seen.push(p));
      a.onRequest("client/ask", async (p) => ({ answer: `yes to ${(p as { q: string }).q}` }));
      expect(await a.request("sum", [1, 2, 3])).toBe(6);
      await a.notify("log", { line: 1 });
      expect(await b.request("client/ask", { q: "proceed?" })).toEqual({ answer: "yes to proceed?" });
      expect(seen).toEqual([{ line: 1 }]);
      expect(a.pendingCount).toBe(0);
      a.close();
      b.close();
    });
  }

  it("answers a request whose id is 0, and resolves our request from a response with our id", async () => {
    const s = raw(ndjsonFraming());
    s.peer.onRequest("ping", () => "pong");
    await s.send('{"jsonrpc":"2.0","id":0,"method":"ping"}\n');
    expect(await s.next()).toEqual({ jsonrpc: "2.0", id: 0, result: "pong" });
    const p = s.peer.request("x", { a: 1 });
    const req = (await s.next()) as { id: number; method: string; params: unknown };
    expect(req).toMatchObject({ method: "x", params: { a: 1 } });
    await s.send(`{"jsonrpc":"2.0","id":${req.id},"result":null}\n`);
    expect(await p).toBeNull();
    s.peer.close();
  });

  it("answers unknown methods with -32601 and handler errors with their code", async () => {
    const s = raw(ndjsonFraming());
    s.peer.onRequest("strict", () => {
      throw JsonRpcError.invalidParams("path must be absolute", { path: "x" });
    });
    s.peer.onRequest("boom", () => {
      throw new Error("disk full");
    });
    await s.send(
      '{"jsonrpc":"2.0","id":"a","method":"nope"}\n{"jsonrpc":"2.0","id":2,"method":"strict"}\n{"jsonrpc":"2.0","id":3,"method":"boom"}\n',
    );
    expect(await s.next()).toMatchObject({ id: "a", error: { code: -32601 } });
    expect(await s.next()).toMatchObject({
      id: 2,
      error: { code: -32602, message: "path must be absolute", data: { path: "x" } },
    });
    expect(await s.next()).toMatchObject({ id: 3, error: { code: -32603, message: "disk full" } });
    s.peer.close();
  });

  it("rejects with the other side's error, and times out requests that get no answer", async () => {
    const s = raw(ndjsonFraming());
    const failing = s.peer.request("x");
    const req = (await s.next()) as { id: number };
    await s.send(`{"jsonrpc":"2.0","id":${req.id},"error":{"code":-32000,"message":"Authentication required"}}\n`);
    await expect(failing).rejects.toMatchObject({
      name: "JsonRpcError",
      code: -32000,
      message: "Authentication required",
    });
    const slow = s.peer.request("slow", undefined, { timeoutMs: 20 });
    await expect(slow).rejects.toBeInstanceOf(JsonRpcTimeoutError);
    // A late answer to the timed-out request is skipped, not fatal.
    const late = (await s.next()) as { id: number };
    await s.send(`{"jsonrpc":"2.0","id":${late.id},"result":1}\n`);
    await s.send("not json\n");
    const after = s.peer.request("after");
    const r = (await s.next()) as { id: number };
    await s.send(`{"jsonrpc":"2.0","id":${r.id},"result":"fine"}\n`);
    expect(await after).toBe("fine");
    expect(s.skipped).toEqual(["response to an unknown request", "not JSON"]);
    s.peer.close();
  });

  it("rejects every pending request and aborts running handlers when the other side goes away", async () => {
    const s = raw(ndjsonFraming());
    let aborted = false;
    s.peer.onRequest(
      "wait",
      (_p, ctx) =>
        new Promise((resolve) =>
          ctx.signal.addEventListener("abort", () => {
            aborted = true;
            resolve(null);
          }),
        ),
    );
    await s.send('{"jsonrpc":"2.0","id":0,"method":"wait"}\n');
    const one = s.peer.request("one");
    const two = s.peer.request("two");
    await s.next();
    await s.next();
    await s.end();
    await expect(one).rejects.toBeInstanceOf(JsonRpcClosedError);
    await expect(two).rejects.toBeInstanceOf(JsonRpcClosedError);
    await s.peer.closed;
    expect(aborted).toBe(true);
    expect(s.peer.isClosed).toBe(true);
    await expect(s.peer.request("three")).rejects.toBeInstanceOf(JsonRpcClosedError);
    await expect(s.peer.notify("n")).rejects.toBeInstanceOf(JsonRpcClosedError);
  });

  it("skips messages that are not JSON-RPC", async () => {
    const s = raw(ndjsonFraming());
    await s.send('{"hello":"world"}\n');
    const p = s.peer.request("x");
    const req = (await s.next()) as { id: number };
    await s.send(`{"jsonrpc":"2.0","id":${req.id},"result":2}\n`);
    expect(await p).toBe(2);
    expect(s.skipped).toEqual(["not a JSON-RPC message"]);
    expect(dec.decode(ndjsonFraming().encode({}))).toBe("{}\n");
    s.peer.close();
  });
});
