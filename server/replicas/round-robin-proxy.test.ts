import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, expect, it } from "vitest";
import { type RoundRobinProxy, startRoundRobinProxy } from "../../testkit/round-robin-proxy";

const servers: http.Server[] = [];
let proxy: RoundRobinProxy | undefined;
afterEach(async () => {
  await proxy?.close();
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    s.close();
  }
});

async function replica(name: string): Promise<{ port: number; server: http.Server; tick: () => void }> {
  const streams = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    if (req.url === "/events") {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(`data: hello from ${name}\n\n`);
      streams.add(res);
      return;
    }
    res.end(name);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  servers.push(server);
  return {
    port: (server.address() as AddressInfo).port,
    server,
    tick: () => {
      for (const s of streams) s.write("data: tick\n\n");
    },
  };
}

it("alternates replicas without stickiness, streams SSE unbuffered, and skips a replica that is down", async () => {
  const a = await replica("A");
  const b = await replica("B");
  proxy = await startRoundRobinProxy([a.port, b.port]);
  const names = [];
  for (let i = 0; i < 4; i++) names.push(await (await fetch(`${proxy.url}/x`)).text());
  expect(names).toEqual(["A", "B", "A", "B"]);

  const res = await fetch(`${proxy.url}/events`);
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  expect((await reader.read()).value).toContain("hello from A");
  a.tick();
  expect((await reader.read()).value).toContain("tick");
  await reader.cancel();

  a.server.closeAllConnections();
  await new Promise((r) => a.server.close(r));
  const after = [];
  for (let i = 0; i < 3; i++) after.push(await (await fetch(`${proxy.url}/x`)).text());
  expect(after).toEqual(["B", "B", "B"]);
});
