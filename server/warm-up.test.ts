import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import { afterEach, describe, expect, it } from "vitest";
import { warmUp } from "./warm-up";

let server: http.Server | undefined;
afterEach(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())));

/** A free port: bound, then released, so the warm-up first finds nothing listening there. */
async function freePort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe("warmUp", () => {
  it("waits for the server to listen, then asks for the sessions list and a session page as a prefetch, with the token", async () => {
    const port = await freePort();
    const seen: Array<{ url?: string; auth?: string; prefetch?: string }> = [];
    const done = warmUp({ origin: `http://127.0.0.1:${port}`, token: "tok-123", waitMs: 10_000 });
    await new Promise((r) => setTimeout(r, 300)); // the first attempts find nothing listening
    server = http.createServer((req, res) => {
      seen.push({
        url: req.url,
        auth: req.headers.authorization,
        prefetch: req.headers["next-router-prefetch"] as string | undefined,
      });
      res.end("<html></html>");
    });
    await new Promise<void>((r) => server!.listen(port, "127.0.0.1", r));
    await done;
    expect(seen).toEqual([
      { url: "/", auth: "Bearer tok-123", prefetch: undefined },
      { url: "/sessions/warm-up/warm-up", auth: "Bearer tok-123", prefetch: "1" },
    ]);
  });

  // One of this machine's own addresses that is not loopback (the test is skipped on a machine with none).
  const ownAddress = Object.values(os.networkInterfaces())
    .flat()
    .find((a) => a && a.family === "IPv4" && !a.internal)?.address;

  it.skipIf(!ownAddress)(
    "sends the token to loopback only, not to another of this machine's addresses",
    async ({ skip }) => {
      const asked: string[] = [];
      server = http.createServer((req, res) => {
        asked.push(req.url ?? "");
        res.end();
      });
      await new Promise<void>((r) => server!.listen(0, "0.0.0.0", r));
      const { port } = server.address() as AddressInfo;
      // Reachable: the same server answers there (where the network refuses it, there is nothing to show).
      const probe = await fetch(`http://${ownAddress}:${port}/probe`).catch(() => undefined);
      if (!probe?.ok) return skip();
      await warmUp({ origin: `http://${ownAddress}:${port}`, token: "t", waitMs: 1_000 });
      expect(asked).toEqual(["/probe"]);
    },
  );

  it("gives up quietly when nothing ever listens", async () => {
    const port = await freePort();
    await expect(warmUp({ origin: `http://127.0.0.1:${port}`, token: "t", waitMs: 300 })).resolves.toBeUndefined();
  });
});
