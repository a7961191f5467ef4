/**
 * A real redis-server for one test file (testkit/redis-server.ts: a free port, `noeviction`):
 * started before its tests, stopped after them, with the connections its tests opened.
 */
import { Redis } from "ioredis";
import { afterAll, beforeAll } from "vitest";
import { type RedisServer, startRedis } from "./redis-server";

export function redisPerFile(): { client(): Redis; url(): string } {
  let server: RedisServer | undefined;
  const clients: Redis[] = [];
  beforeAll(async () => {
    server = await startRedis();
  });
  afterAll(async () => {
    for (const c of clients) c.disconnect();
    await server?.stop();
  });
  const url = () => {
    if (!server) throw new Error("redisPerFile: the server starts in beforeAll");
    return server.url;
  };
  return {
    url,
    /** A connection that fails fast (one retry) and is closed when the file's tests end. */
    client() {
      const c = new Redis(url(), { maxRetriesPerRequest: 1 });
      c.on("error", () => undefined);
      clients.push(c);
      return c;
    },
  };
}
