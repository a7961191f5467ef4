/**
 * The bounds of every call to an A2A agent (docs/backends/a2a.md, "Bounds"): a hostile agent's
 * 5 MB card, an endless SSE line and a redirect each end in a clear backend error, and the console
 * stops reading at the bound — the agent gets to write little more than the bound (what the
 * sockets buffer), never the whole body, so the console's memory stays flat.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { isApiError } from "../../errors";
import { MAX_CARD_BYTES, MAX_SSE_LINE_BYTES } from "./bounded-fetch";
import { A2aConnection, mapA2aError, previewAgent } from "./client";

process.env.SWITCHBOARD_LOG ??= "silent";

const servers: http.Server[] = [];
afterEach(async () => {
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

/** Writes `chunk` until the client goes away (or `max` bytes), honouring backpressure; resolves with the bytes written. */
function flood(res: http.ServerResponse, chunk: Buffer, max = 64 * 1024 * 1024): Promise<number> {
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

const card = (url: string) => ({
  name: "Hostile agent",
  version: "1",
  supportedInterfaces: [{ url, protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
  capabilities: { streaming: true, extensions: [] },
  skills: [],
});

describe("bounds against a hostile agent", { timeout: 30_000 }, () => {
  it("a 5 MB card is refused while it streams in", async () => {
    let written: Promise<number> | undefined;
    const url = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"name":"big","description":"');
      written = flood(res, Buffer.alloc(64 * 1024, "a"), 5 * 1024 * 1024);
    });
    await expect(previewAgent(url, "t")).rejects.toSatisfy(
      (e: unknown) =>
        isApiError(e) && e.status === 502 && /agent card/.test(e.message) && /larger than 1024 KiB/.test(e.message),
    );
    const bytes = await written!;
    expect(bytes).toBeLessThan(5 * 1024 * 1024);
    expect(bytes).toBeLessThan(MAX_CARD_BYTES + 4 * 1024 * 1024);
  });

  it("an endless SSE line ends the stream with a clear error", async () => {
    let written: Promise<number> | undefined;
    const url = await serve((req, res) => {
      if (req.method === "GET")
        return void res
          .writeHead(200, { "content-type": "application/json" })
          .end(JSON.stringify(card(`http://${req.headers.host}/`)));
      req.resume();
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("data: ");
      written = flood(res, Buffer.alloc(64 * 1024, "x"));
    });
    const conn = await A2aConnection.open(url, "t");
    expect(conn.reached.version).toBe("1.0");
    const params = {
      tenant: "",
      message: {
        messageId: "m",
        contextId: "",
        taskId: "",
        role: 1,
        parts: [],
        metadata: undefined,
        extensions: [],
        referenceTaskIds: [],
      },
      configuration: undefined,
      metadata: undefined,
    };
    let error: unknown;
    try {
      for await (const _ of conn.stream(params, AbortSignal.timeout(20_000))) void _;
    } catch (err) {
      error = err;
    }
    const mapped = mapA2aError(error, "run the prompt", "Hostile agent");
    expect(mapped.status).toBe(502);
    expect(mapped.message).toMatch(/Hostile agent could not run the prompt: .*line longer than 1024 KiB/);
    const bytes = await written!;
    expect(bytes).toBeLessThan(MAX_SSE_LINE_BYTES + 8 * 1024 * 1024);
  });

  it("a redirecting agent is refused, and the token never follows the redirect", async () => {
    let elsewhere = 0;
    const other = await serve((_req, res) => {
      elsewhere++;
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
    const url = await serve((req, res) => {
      if (req.method === "GET")
        return void res
          .writeHead(200, { "content-type": "application/json" })
          .end(JSON.stringify(card(`http://${req.headers.host}/`)));
      req.resume();
      res.writeHead(307, { location: `${other}/` }).end();
    });
    const conn = await A2aConnection.open(url, "secret-token");
    const err = await conn.getTask("t1").catch((e: unknown) => e);
    const mapped = mapA2aError(err, "read the task", "Redirecting agent");
    expect(mapped.status).toBe(502);
    expect(mapped.message).toMatch(/redirect \(HTTP 307\)/);
    await expect(conn.call("opencode.sessions.list", {})).rejects.toBeDefined();
    // a redirecting card too
    const cardRedirect = await serve(
      (_req, res) => void res.writeHead(302, { location: `${other}/.well-known/agent-card.json` }).end(),
    );
    await expect(previewAgent(cardRedirect, "secret-token")).rejects.toSatisfy(
      (e: unknown) => isApiError(e) && /redirect/.test(e.message),
    );
    expect(elsewhere).toBe(0);
  });
});
