/**
 * The OpenCode adapter speaking `/api`, against a small fake of the `/api` routes it uses, whose
 * bodies and frames are shaped as the pinned `opencode serve` (1.18.33) sends them: what the real
 * server cannot be made to show on cue (a long history, a step's frame) or does not do (compact).
 * The real server is covered by the conformance suite and the `opencode-api` end-to-end project.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { Backend, TimelineEvent } from "@/lib/model";
import { until } from "@/testkit/until";
import type { EventSink, LoadedSession } from "../types";
import { OpencodeAdapter } from "./adapter";

process.env.SWITCHBOARD_LOG ??= "silent";

const S = "ses_de8db46fbffeJ6yitaNihKmQ4n";
const DIR = "/tmp/switchboard-ws-fake";
const tokens = (input: number, output: number) => ({ input, output, reasoning: 0, cache: { read: 0, write: 0 } });
/** As `GET /api/session/:id` answers on 1.18.33: the session's own totals stay zero however much it ran. */
const session = {
  id: S,
  projectID: "p",
  cost: 0,
  tokens: tokens(0, 0),
  time: { created: 1, updated: 1 },
  title: "New session",
  location: { directory: DIR },
};
const assistant = (n: number, input: number, output: number, cost = 0) => ({
  id: `msg_21724c66b${String(n).padStart(4, "0")}mxftEd1WxJn3P`,
  time: { created: 10 + n, completed: 11 + n },
  type: "assistant",
  agent: "build",
  model: { id: "fake-model", providerID: "fake" },
  content: [{ type: "text", id: "text-0", text: `answer ${n}` }],
  finish: "stop",
  cost,
  tokens: tokens(input, output),
});
const user = (n: number) => ({
  id: `msg_21724c384${String(n).padStart(4, "0")}pUzdcpelAar2th`,
  time: { created: 10 + n },
  text: `prompt ${n}`,
  type: "user",
});

interface FakeApi {
  url: string;
  /** Newest first, as `order=desc` lists them, `limit` a page. */
  messages: unknown[];
  compact: { status: number; body?: unknown };
  /** What `GET /api/permission/saved` lists; a reply "always" adds the request's `save`. */
  saved: { action: string; resource: string }[];
  asked: string[];
  /** The query strings of `GET /api/fs/find`. */
  finds: string[];
  /** The query strings of `GET /api/session`. */
  lists: string[];
  /** Permissions asked (sent as `permission.v2.asked`) and not yet answered, as the server lists them. */
  pendingPermissions: Record<string, unknown>[];
  /** While set, `GET /api/permission/request` answers only once it settles (a list in flight). */
  permissionList?: Promise<void>;
  send(type: string, data: Record<string, unknown>): void;
  close(): Promise<void>;
}

async function startFakeApi(): Promise<FakeApi> {
  const streams = new Set<http.ServerResponse>();
  let seq = 0;
  const fake: FakeApi = {
    url: "",
    messages: [],
    compact: { status: 204 },
    saved: [],
    pendingPermissions: [],
    asked: [],
    finds: [],
    lists: [],
    send(type, data) {
      // As the real server: an asked permission is listed by /api/permission/request until answered.
      if (type === "permission.v2.asked") fake.pendingPermissions.push(data);
      const id = `evt_${++seq}`;
      for (const s of streams)
        s.write(`id: ${id}\ndata: ${JSON.stringify({ id, type, location: { directory: DIR }, data })}\n\n`);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://fake");
    fake.asked.push(`${req.method} ${url.pathname}`);
    const json = (status: number, body: unknown) =>
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    if (url.pathname === "/api/event") {
      res.writeHead(200, { "content-type": "text/event-stream" });
      streams.add(res);
      req.on("close", () => streams.delete(res));
      res.write(`id: evt_0\ndata: ${JSON.stringify({ id: "evt_0", type: "server.connected", data: {} })}\n\n`);
      return;
    }
    if (url.pathname === "/api/session/active") return json(200, { data: {} });
    // 1.18.33: the location's project, and `project=` keeps that project's sessions (checked on the real server).
    if (url.pathname === "/api/location") return json(200, { directory: DIR, project: { directory: DIR, id: "p" } });
    if (url.pathname === "/api/session" && req.method === "GET") {
      fake.lists.push(url.search);
      const other = {
        ...session,
        id: "ses_other0000000000000000000",
        projectID: "q",
        location: { directory: "/elsewhere" },
      };
      const all = [session, other].filter(
        (x) => !url.searchParams.get("project") || x.projectID === url.searchParams.get("project"),
      );
      return json(200, { data: all, cursor: {} });
    }
    if (url.pathname === "/api/permission/request") {
      // The list as it is when asked for, answered at once or, while a list is held, later.
      const data = [...fake.pendingPermissions];
      const answer = () => json(200, { location: { directory: DIR }, data });
      if (fake.permissionList) void fake.permissionList.then(answer);
      else answer();
      return;
    }
    if (url.pathname === "/api/question/request") return json(200, { location: { directory: DIR }, data: [] });
    if (url.pathname === `/api/session/${S}`) return json(200, { data: session });
    if (url.pathname === `/api/session/${S}/message`) {
      const from = Number(url.searchParams.get("cursor") ?? 0);
      const limit = Number(url.searchParams.get("limit") ?? 50);
      const data = fake.messages.slice(from, from + limit);
      return json(200, { data, cursor: from + limit < fake.messages.length ? { next: String(from + limit) } : {} });
    }
    if (url.pathname === "/api/permission/saved") return json(200, { data: fake.saved });
    if (url.pathname === "/api/fs/find") {
      fake.finds.push(url.search);
      return json(200, {
        data: [
          { path: "src/app.ts", type: "file" },
          { path: "src", type: "directory" },
          { path: `${DIR}/docs/api.md`, type: "file" },
          { path: "/etc/passwd", type: "file" },
        ],
        location: { directory: DIR, project: { directory: DIR, id: "p" } },
      });
    }
    if (url.pathname === `/api/session/${S}/permission/per_1/reply` && req.method === "POST") {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString()));
      req.on("end", () => {
        fake.pendingPermissions = fake.pendingPermissions.filter((p) => p.id !== "per_1");
        if ((JSON.parse(body) as { reply: string }).reply === "always")
          fake.saved.push({ action: "bash", resource: "ls -la" });
        json(200, { data: true });
      });
      return;
    }
    if (url.pathname === `/api/session/${S}/compact` && req.method === "POST") {
      const { status, body } = fake.compact;
      return body === undefined ? res.writeHead(status).end() : json(status, body);
    }
    json(404, { _tag: "NotFound", message: "Not Found" });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}

class RecordingSink implements EventSink {
  events: { sessionId: string; event: TimelineEvent }[] = [];
  backends: Backend[] = [];
  publish(_b: string, sessionId: string, event: TimelineEvent) {
    this.events.push({ sessionId, event });
  }
  backendChanged(b: Backend) {
    this.backends.push(b);
  }
  openSessions() {
    return [S];
  }
  reconciled: LoadedSession[] = [];
  reconcile(_b: string, _s: string, fresh: LoadedSession) {
    this.reconciled.push(fresh);
  }
  of<T extends TimelineEvent["type"]>(type: T) {
    return this.events.flatMap((e) => (e.event.type === type ? [e.event as Extract<TimelineEvent, { type: T }>] : []));
  }
}

let fake: FakeApi | undefined;
let adapter: OpencodeAdapter | undefined;
afterEach(async () => {
  await adapter?.stop();
  await fake?.close();
  adapter = fake = undefined;
});

async function connected() {
  fake = await startFakeApi();
  const sink = new RecordingSink();
  adapter = new OpencodeAdapter({ id: "oc", label: "OpenCode", baseUrl: fake.url, contract: "api" }, sink);
  await adapter.start();
  await until(() => adapter!.info().status === "ready", "the /api event stream");
  return { fake, sink, adapter };
}

describe("OpencodeAdapter on /api: session usage", () => {
  it("adds up the assistant messages' usage, older pages included, where the server reports zero", async () => {
    const { fake, adapter } = await connected();
    // 130 turns: the console loads the newest 40 messages, the rest are read to add them up.
    fake.messages = Array.from({ length: 130 }, (_, i) => [assistant(130 - i, 100, 10, 0.01), user(130 - i)]).flat();
    const loaded = await adapter.loadSession(S);
    expect(loaded.session.usage).toMatchObject({ inputTokens: 13_000, outputTokens: 1_300 });
    expect(loaded.session.usage?.costUsd).toBeCloseTo(1.3);
    // The history shown is still the first page only.
    expect(loaded.messages).toHaveLength(40);
  });

  it("shows none before anything used tokens, then follows each step's frame live", async () => {
    const { fake, sink, adapter } = await connected();
    const loaded = await adapter.loadSession(S);
    expect(loaded.session.usage).toBeUndefined();
    const step = (n: number, finish: string, input: number, output: number) =>
      fake.send("session.next.step.ended", {
        timestamp: 20 + n,
        sessionID: S,
        assistantMessageID: assistant(n, 0, 0).id,
        finish,
        cost: 0,
        tokens: tokens(input, output),
        snapshot: "x",
        files: [],
      });
    step(1, "tool-calls", 303, 22);
    await until(() => sink.of("usage.updated").length === 1, "the first step's usage");
    step(2, "stop", 377, 3);
    await until(() => sink.of("usage.updated").length === 2, "the second step's usage");
    expect(sink.of("usage.updated").map((e) => e.usage)).toEqual([
      { inputTokens: 303, outputTokens: 22, costUsd: 0 },
      { inputTokens: 680, outputTokens: 25, costUsd: 0 },
    ]);
    // The same step again (a replayed frame) is not counted twice.
    step(2, "stop", 377, 3);
    await until(() => sink.of("usage.updated").length === 3, "the replayed step");
    expect(sink.of("usage.updated")[2]!.usage).toEqual({ inputTokens: 680, outputTokens: 25, costUsd: 0 });
  });
});

describe("OpencodeAdapter on /api: compaction", () => {
  it("a server that answers it cannot compact loses the action, with the reason", async () => {
    const { fake, sink, adapter } = await connected();
    expect(adapter.info().capabilities.compact).toBe(true);
    fake.compact = {
      status: 503,
      body: {
        _tag: "ServiceUnavailableError",
        message: "Session compact is not available yet",
        service: "session.compact",
      },
    };
    await expect(adapter.compact(S)).rejects.toMatchObject({
      code: "conflict",
      message: expect.stringContaining("OpenCode cannot compact a conversation"),
    });
    expect(adapter.info().capabilities.compact).toBe(false);
    expect(sink.backends.at(-1)?.capabilities.compact).toBe(false);
    // Nothing else it can do is hidden with it.
    expect(adapter.info().capabilities.revert).toBe(true);
  });

  it("a server that compacts keeps it", async () => {
    const { fake, adapter } = await connected();
    fake.compact = { status: 204 };
    await adapter.compact(S);
    expect(fake.asked).toContain(`POST /api/session/${S}/compact`);
    expect(adapter.info().capabilities.compact).toBe(true);
  });
});

describe("OpencodeAdapter on /api: revert", () => {
  it("a committed revert reloads the history, whose reverted messages no frame names", async () => {
    const { fake, sink, adapter } = await connected();
    fake.messages = [assistant(1, 200, 10), user(1)];
    await adapter.loadSession(S);
    await until(() => sink.reconciled.length > 0, "the reconcile on connect");
    const before = sink.reconciled.length;
    // Recorded on 1.18.33 (POST …/revert/commit): the frame names the revert point only.
    fake.messages = [user(1)];
    fake.send("session.next.revert.committed", { timestamp: 30, sessionID: S, messageID: user(1).id });
    await until(() => sink.reconciled.length > before, "the reload");
    expect(sink.reconciled.at(-1)!.messages.map((m) => m.id)).toEqual([user(1).id]);
  });
});

describe("OpencodeAdapter on /api: saved rules", () => {
  it('shows the rules the server saved, read at connect and again after an "always"', async () => {
    fake = await startFakeApi();
    fake.saved = [{ action: "edit", resource: "*" }];
    const sink = new RecordingSink();
    adapter = new OpencodeAdapter({ id: "oc", label: "OpenCode", baseUrl: fake.url, contract: "api" }, sink);
    await adapter.start();
    await until(() => adapter!.info().savedRules !== undefined, "the saved rules at connect");
    expect(adapter.info().savedRules).toEqual(["edit: *"]);
    // An event sent before the adapter's event stream is open is never seen: wait for it (ready).
    await until(() => adapter!.info().status === "ready", "the /api event stream");
    fake.send("permission.v2.asked", {
      id: "per_1",
      sessionID: S,
      action: "bash",
      resources: ["ls -la"],
      save: ["ls -la"],
      metadata: { command: "ls -la" },
    });
    await until(() => sink.of("interrupt.requested").length === 1, "the permission card");
    await adapter.answerInterrupt(S, "per_1", { decision: "allow_always" });
    await until(() => adapter!.info().savedRules?.length === 2, "the saved rules after always");
    expect(adapter.info().savedRules).toEqual(["edit: *", "bash: ls -la"]);
    expect(sink.backends.at(-1)?.savedRules).toEqual(["edit: *", "bash: ls -la"]);
  });
});

describe("OpencodeAdapter on /api: pending requests", () => {
  it("a permission asked while a pending list is in flight is not resolved by that list's not having it", async () => {
    const { fake, sink, adapter } = await connected();
    let release!: () => void;
    fake.permissionList = new Promise<void>((r) => (release = r));
    const lists = () => fake.asked.filter((a) => a === "GET /api/permission/request").length;
    const before = lists();
    const load = adapter.loadSession(S); // reads the pending lists: held
    await until(() => lists() > before, "the held pending list");
    fake.send("permission.v2.asked", {
      id: "per_1",
      sessionID: S,
      action: "bash",
      resources: ["ls"],
      save: ["ls"],
      metadata: { command: "ls" },
    });
    await until(() => sink.of("interrupt.requested").length === 1, "the permission card");
    release();
    await load;
    expect(sink.of("interrupt.resolved")).toEqual([]);
    // Still pending on the server: a list read now has it.
    expect((await adapter.loadSession(S)).interrupts.map((i) => i.id)).toEqual(["per_1"]);
    // Answered elsewhere (no frame came): a list read after that proves it gone.
    fake.pendingPermissions = [];
    expect((await adapter.loadSession(S)).interrupts.map((i) => i.id)).toEqual([]);
    expect(sink.of("interrupt.resolved")).toHaveLength(1);
  });
});

describe("OpencodeAdapter on /api: file search for @ mentions", () => {
  it("asks /api/fs/find for files in the session's directory, relative paths only", async () => {
    const { fake, adapter } = await connected();
    await adapter.getSession(S);
    expect(await adapter.findFiles(S, "ap", 7)).toEqual(["src/app.ts", "docs/api.md"]);
    const q = new URLSearchParams(fake.finds[0]!);
    expect(q.get("query")).toBe("ap");
    expect(q.get("type")).toBe("file");
    expect(q.get("limit")).toBe("7");
    expect(fake.finds[0]).toContain(encodeURIComponent(DIR));
    expect(adapter.info().capabilities.mentions).toEqual({ search: "backend", carry: "text" });
  });
});

describe("OpencodeAdapter on /api: the session list", () => {
  it("lists the sessions of the backend directory's project only, as V1 does", async () => {
    const { adapter, fake } = await connected();
    const page = await adapter.listSessions({ limit: 20 });
    expect(page.items.map((x) => x.id)).toEqual([S]);
    expect(fake.lists.at(-1)).toContain("project=p");
  });
});
