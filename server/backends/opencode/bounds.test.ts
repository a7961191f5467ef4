/**
 * The bounds on what an OpenCode server may make the console read (docs/backends/opencode.md,
 * "Bounds"), against a hostile stub — a real local HTTP server: a 100 MB `/doc`, an endless event
 * line on either contract's stream, and redirects. Each ends in a clear backend error; the console
 * stops reading at the bound (the stub gets to write little more than the bound — what the sockets
 * buffer — never the whole body), so its memory stays bounded; the stream is then tried again.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { until } from "@/testkit/until";
import type { Backend } from "@/lib/model";
import type { EventSink } from "../types";
import { OpencodeAdapter } from "./adapter";
import { httpContractProbe } from "./contract";
import { createTimedFetch, MAX_DOC_BYTES, MAX_EVENT_BYTES } from "./timed-fetch";

process.env.SWITCHBOARD_LOG ??= "silent";

const MiB = 1024 * 1024;
/** What the sockets between the stub and the console may hold beyond a bound (both sides' buffers). */
const SLACK = 16 * MiB;

const servers: http.Server[] = [];
const adapters: OpencodeAdapter[] = [];
afterEach(async () => {
  await Promise.all(adapters.splice(0).map((a) => a.stop()));
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

async function serve(handler: http.RequestListener): Promise<string> {
  const s = http.createServer(handler);
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
}

/**
 * Writes `chunk` until the client goes away or `max` bytes are out, honouring backpressure (so the
 * stub never holds more than a chunk: nothing like 100 MB is allocated); resolves with the bytes written.
 */
function flood(res: http.ServerResponse, chunk: Buffer, max: number): Promise<number> {
  return new Promise((resolve) => {
    let written = 0;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      resolve(written);
    };
    res.on("close", finish);
    const pump = () => {
      while (!done && written < max) {
        written += chunk.length;
        if (!res.write(chunk)) return void res.once("drain", pump);
      }
      if (written >= max) res.end(finish);
    };
    pump();
  });
}

const sink: EventSink = {
  publish() {},
  backendChanged(_b: Backend) {},
  openSessions: () => [],
  reconcile() {},
  sessionState: () => undefined,
  async openSession() {},
};

function start(baseUrl: string, contract?: "v1" | "api"): OpencodeAdapter {
  const a = new OpencodeAdapter(
    { id: "oc", label: "OpenCode", baseUrl, firstFrameMs: 60_000, ...(contract ? { contract } : {}) },
    sink,
  );
  adapters.push(a);
  void a.start();
  return a;
}

const X = Buffer.alloc(64 * 1024, "x");

describe("bounds against a hostile OpenCode server", { timeout: 60_000 }, () => {
  it("a 100 MB /doc is refused while it streams in", async () => {
    const written: Promise<number>[] = [];
    const url = await serve((req, res) => {
      if (req.url === "/doc") {
        res.writeHead(200, { "content-type": "application/json" });
        res.write('{"paths":{},"x":"');
        written.push(flood(res, X, 100 * MiB));
        return;
      }
      res.writeHead(404).end();
    });
    await expect(httpContractProbe(url, {}).doc()).rejects.toThrow(/\/doc.* larger than 8 MiB/);
    const bytes = await written[0]!;
    expect(bytes).toBeLessThan(MAX_DOC_BYTES + SLACK);

    // The adapter says so (and tries again later).
    const adapter = start(url);
    await until(() => /larger than 8 MiB/.test(adapter.info().error ?? ""), "the /doc bound in the backend's error");
    expect(await written[1]!).toBeLessThan(MAX_DOC_BYTES + SLACK);
  });

  it("an endless line on the V1 event stream ends it with a clear error, and the stream is tried again", async () => {
    const written: Promise<number>[] = [];
    const url = await serve((req, res) => {
      if (req.url?.startsWith("/global/event")) {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write("data: ");
        written.push(flood(res, X, 200 * MiB));
        return;
      }
      res.writeHead(404).end();
    });
    const adapter = start(url, "v1");
    await until(() => /line longer than 32 MiB/.test(adapter.info().error ?? ""), "the line bound in the error");
    expect(await written[0]!).toBeLessThan(MAX_EVENT_BYTES + SLACK);
    await until(() => written.length >= 2, "a new event stream");
  });

  it("an endless line on the /api event stream ends it with a clear error", async () => {
    const written: Promise<number>[] = [];
    const url = await serve((req, res) => {
      if (req.url?.startsWith("/api/event")) {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write("data: ");
        written.push(flood(res, X, 200 * MiB));
        return;
      }
      res.writeHead(404).end();
    });
    const adapter = start(url, "api");
    await until(() => /line longer than 32 MiB/.test(adapter.info().error ?? ""), "the line bound in the error");
    expect(await written[0]!).toBeLessThan(MAX_EVENT_BYTES + SLACK);
  });

  it("a redirect from /doc, from either event stream or from a REST call is refused, never followed", async () => {
    let elsewhere = 0;
    const other = await serve((_req, res) => {
      elsewhere++;
      res.writeHead(200, { "content-type": "text/event-stream" }).end();
    });
    const url = await serve((req, res) => {
      res.writeHead(302, { location: `${other}${req.url}` }).end();
    });
    await expect(httpContractProbe(url, {}).doc()).rejects.toThrow(/redirect \(HTTP 302\)/);
    for (const contract of [undefined, "v1", "api"] as const) {
      const adapter = start(url, contract);
      await until(() => /redirect \(HTTP 302\)/.test(adapter.info().error ?? ""), `the redirect refused (${contract})`);
      await adapter.stop();
    }
    await expect(createTimedFetch(10_000)(`${url}/session`)).rejects.toThrow(/redirect \(HTTP 302\)/);
    expect(elsewhere).toBe(0);
  });

  it("a REST answer over its bound fails the call", async () => {
    let written: Promise<number> | undefined;
    const url = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write("[");
      written = flood(res, X, 64 * MiB);
    });
    const res = await createTimedFetch(10_000, { maxAnswerBytes: MiB })(`${url}/session`);
    await expect(res.text()).rejects.toThrow(/larger than 1 MiB/);
    expect(await written!).toBeLessThan(MiB + SLACK);
  });
});
