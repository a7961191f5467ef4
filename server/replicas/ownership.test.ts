import http from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { redisPerFile } from "../../testkit/redis-per-file";
import { until } from "@/testkit/until";
import { ACTING_PERSON_HEADER, setActingPerson } from "../auth/acting-person";
import { isApiError } from "../errors";
import { FORWARDED_BY, forwardRequest } from "./forward";
import { Ownership } from "./ownership";
import { PeerPolicy } from "./peers";
import { parseReplicaKeys, SIGNATURE_HEADERS } from "./replica-auth";

const { client } = redisPerFile();

function replica(id: string) {
  const events: string[] = [];
  const o = new Ownership(
    client(),
    id,
    `https://${id}.replicas.test:3000`,
    { acquired: (b, e) => events.push(`+${b}@${e}`), lost: (b, e) => events.push(`-${b}@${e}`) },
    600,
    PeerPolicy.fromList("A.replicas.test:3000,B.replicas.test:3000"),
  );
  return { o, events };
}

describe("ownership (real Redis)", () => {
  it("one replica runs each backend; the others find it and its address; a stop hands the backends over", async () => {
    const a = replica("A");
    const b = replica("B");
    await a.o.start();
    await b.o.start();
    a.o.claim("zot");
    await until(() => a.events.includes("+zot@1"));
    b.o.claim("zot");
    b.o.claim("opal");
    await until(() => b.events.includes("+opal@1"));
    a.o.claim("opal");
    await new Promise((r) => setTimeout(r, 700)); // past a lease renewal or two
    expect(a.o.owns("zot") && !a.o.owns("opal")).toBe(true);
    expect(b.o.owns("opal") && !b.o.owns("zot")).toBe(true);
    expect(await b.o.owner("zot")).toEqual({ replicaId: "A", url: "https://A.replicas.test:3000", epoch: 1 });
    expect(await a.o.owner("opal")).toEqual({ replicaId: "B", url: "https://B.replicas.test:3000", epoch: 1 });
    expect(a.o.token("zot")).toBe("A:1");
    expect(b.o.token("zot")).toBeUndefined();
    expect(a.o.mayWrite("zot") && !b.o.mayWrite("zot")).toBe(true);

    // A stops: it gives its leases up, and B runs zot at once, under a higher epoch.
    await a.o.stop();
    expect(a.events).toContain("-zot@1");
    expect(a.o.mayWrite("zot")).toBe(false);
    await until(() => b.events.includes("+zot@2"), "B takes zot over", 3000);
    expect(await b.o.owner("zot")).toMatchObject({ replicaId: "B", epoch: 2 });

    // A released backend is no longer asked for; nobody holds it.
    await b.o.release("opal");
    expect(b.events).toContain("-opal@1");
    expect(await b.o.owner("opal")).toBeUndefined();
    await b.o.stop();
  });
});

const keys = parseReplicaKeys("k".repeat(40));
const self = (replicaId: string) => ({ replicaId, keys, peers: new PeerPolicy(undefined) });

describe("forwarding to the owner", () => {
  it("names the person the request acts for as this replica decided it, never as the browser said", async () => {
    const seen: (string | undefined)[] = [];
    const owner = http.createServer((req, res) => {
      seen.push(req.headers[ACTING_PERSON_HEADER] as string | undefined);
      req.resume();
      req.on("end", () => res.writeHead(202, { "content-type": "application/json" }).end("{}"));
    });
    await new Promise<void>((resolve) => owner.listen(0, "127.0.0.1", resolve));
    const { port } = owner.address() as AddressInfo;
    const forged = Buffer.from(JSON.stringify({ id: "sub-amir", name: "Amir" })).toString("base64url");
    const make = () =>
      new Request("http://b.example/api/backends/zot/sessions/s1/prompt", {
        method: "POST",
        headers: { "content-type": "application/json", [ACTING_PERSON_HEADER]: forged },
        body: JSON.stringify({ parts: [{ type: "text", text: "hi" }] }),
      });
    try {
      const named = make();
      setActingPerson(named, { id: "sub-olga", name: "Olga" });
      expect((await forwardRequest(named, { url: `http://127.0.0.1:${port}`, replicaId: "A" }, self("B"))).status).toBe(
        202,
      );
      expect(
        (await forwardRequest(make(), { url: `http://127.0.0.1:${port}`, replicaId: "A" }, self("B"))).status,
      ).toBe(202);
    } finally {
      owner.close();
    }
    expect(JSON.parse(Buffer.from(seen[0] ?? "", "base64url").toString("utf8"))).toEqual({
      id: "sub-olga",
      name: "Olga",
    });
    expect(seen[1]).toBeUndefined();
  });

  it("sends the same request signed for the owner instead of the cookie (never the console token), and streams the answer", async () => {
    const seen: { method?: string; url?: string; headers?: http.IncomingHttpHeaders; body?: string } = {};
    const owner = http.createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => {
        body += c.toString();
      });
      req.on("end", () => {
        Object.assign(seen, { method: req.method, url: req.url, headers: req.headers, body });
        res.writeHead(202, { "content-type": "text/event-stream", "x-owner": "A" });
        res.write("id: 1\ndata: one\n\n");
        setTimeout(() => res.end("id: 2\ndata: two\n\n"), 50);
      });
    });
    await new Promise<void>((r) => owner.listen(0, "127.0.0.1", r));
    const port = (owner.address() as AddressInfo).port;
    try {
      const req = new Request("http://b.example/api/backends/zot/sessions/s1/prompt?x=1", {
        method: "POST",
        headers: {
          cookie: "sb_session=abc",
          origin: "http://b.example",
          "content-type": "application/json",
          "x-forwarded-for": "203.0.113.9",
        },
        body: JSON.stringify({ text: "hi" }),
      });
      const res = await forwardRequest(req, { url: `http://127.0.0.1:${port}`, replicaId: "A" }, self("B"));
      expect(res.status).toBe(202);
      expect(res.headers.get("x-owner")).toBe("A");
      expect(await res.text()).toBe("id: 1\ndata: one\n\nid: 2\ndata: two\n\n");
      expect(seen.method).toBe("POST");
      expect(seen.url).toBe("/api/backends/zot/sessions/s1/prompt?x=1");
      expect(seen.body).toBe('{"text":"hi"}');
      expect(seen.headers?.authorization).toBeUndefined();
      expect(seen.headers?.[SIGNATURE_HEADERS.signature]).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(seen.headers?.cookie).toBeUndefined();
      expect(seen.headers?.origin).toBeUndefined();
      expect(seen.headers?.[FORWARDED_BY]).toBe("B");
      expect(seen.headers?.["x-forwarded-for"]).toBe("203.0.113.9");

      // Never forwarded twice: the owner moved meanwhile, and the browser is told to try again.
      const again = new Request("http://a.example/api/backends/zot", { headers: { [FORWARDED_BY]: "B" } });
      const err = await forwardRequest(again, { url: `http://127.0.0.1:${port}`, replicaId: "C" }, self("A")).catch(
        (e: unknown) => e,
      );
      expect(isApiError(err) && err.code).toBe("backend_down");

      // An owner that does not answer: 503 with a sentence, not a stack.
      owner.close();
      const down = await forwardRequest(
        new Request("http://b.example/api/backends/zot"),
        { url: "http://127.0.0.1:9", replicaId: "A" },
        self("B"),
      ).catch((e: unknown) => e);
      expect(isApiError(down) && down.code).toBe("backend_down");
    } finally {
      owner.close();
    }
  });
});
