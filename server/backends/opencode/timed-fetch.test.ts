import http from "node:http";
import type { AddressInfo } from "node:net";
import v8 from "node:v8";
import vm from "node:vm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { byEvent, createTimedFetch, streamFetch } from "./timed-fetch";

v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc") as () => void;

/** A server that accepts requests and never answers them (a server bound but not ready). */
let server: http.Server;
let base: string;
beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.url === "/stream") {
      res.writeHead(200, { "content-type": "text/event-stream", "x-kind": "sse" });
      res.write("data: one\n\n");
      return;
    }
    if (req.url === "/echo") {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString()));
      req.on("end", () => res.end(JSON.stringify({ method: req.method, body, auth: req.headers.authorization })));
    }
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

/** How the SDKs call it: a Request built from the caller's signal, then dropped. */
const sdkCall = (f: typeof fetch, url: string, signal: AbortSignal) => f(new Request(url, { signal }));

async function settles(p: Promise<unknown>, ms: number): Promise<"rejected" | "resolved" | "pending"> {
  return Promise.race([
    p.then(
      () => "resolved" as const,
      () => "rejected" as const,
    ),
    new Promise<"pending">((r) => setTimeout(() => r("pending"), ms)),
  ]);
}

describe("the OpenCode clients' fetch", () => {
  it("a caller's abort reaches an unanswered event stream after a garbage collection", async () => {
    const f = createTimedFetch(60_000);
    const ac = new AbortController();
    const pending = sdkCall(f, `${base}/global/event`, ac.signal);
    await new Promise((r) => setTimeout(r, 50));
    gc();
    gc();
    ac.abort(new Error("watchdog"));
    expect(await settles(pending, 2_000)).toBe("rejected");
  });

  it("times out other calls, and sends method, headers and body", async () => {
    const f = createTimedFetch(200);
    expect(await settles(f(`${base}/session`), 2_000)).toBe("rejected");
    const res = await f(`${base}/echo`, { method: "POST", headers: { authorization: "Basic x" }, body: "hello" });
    expect(await res.json()).toEqual({ method: "POST", body: "hello", auth: "Basic x" });
  });

  it("an event stream's own fetch: aborted before an answer, or while the body streams, under garbage collection", async () => {
    const ac = new AbortController();
    const unanswered = sdkCall(streamFetch(ac.signal), `${base}/global/event`, new AbortController().signal);
    await new Promise((r) => setTimeout(r, 50));
    gc();
    gc();
    ac.abort(new Error("watchdog"));
    expect(await settles(unanswered, 2_000)).toBe("rejected");

    const live = new AbortController();
    const res = await streamFetch(live.signal)(`${base}/stream`, { headers: { authorization: "Basic y" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-kind")).toBe("sse");
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    expect((await reader.read()).value).toBe("data: one\n\n");
    const next = reader.read();
    gc();
    live.abort(new Error("watchdog"));
    expect(await settles(next, 2_000)).toBe("rejected");
  });

  it("cuts an event stream into one chunk per whole event, however it arrives", async () => {
    const enc = new TextEncoder();
    const pieces = ['data: {"a"', ":1}\n\ndata: x\r\n", "\r\n: ping\n", "\n", "data: tail"];
    const source = new ReadableStream<Uint8Array>({
      start(ctl) {
        for (const p of pieces) ctl.enqueue(enc.encode(p));
        ctl.close();
      },
    });
    const out: string[] = [];
    const reader = byEvent(source).getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      out.push(Buffer.from(value).toString("utf8"));
    }
    expect(out).toEqual(['data: {"a":1}\n\n', "data: x\r\n\r", "\n: ping\n\n", "data: tail"]);
  });
});
