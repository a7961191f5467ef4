/**
 * The two generations of OpenCode's `/api/event` types (docs/backends/opencode.md, "Two generations
 * of /api"), the adapter against a small fake `/api` server that serves a `/doc` and replays a
 * turn's frames from a fixture:
 * - `fixtures/api-doc-1.18.json` + `api-turn-1.18.jsonl`: the pinned 1.18.33's names (its `/doc`
 *   trimmed; the frames shaped as its `V2Event` schemas say);
 * - `fixtures/api-doc-2.json` + `api-turn-2.jsonl`: upstream main's, shaped exactly as
 *   anomalyco/opencode's packages/sdk/js/src/v2/gen/types.gen.ts at
 *   ac9ce83255790c38fd9ec2d943ead6180ee7f591 declares them (no released binary serves it yet).
 * The same turn — reasoning, text, a bash tool that asks permission, a question (a form on 2) —
 * must give the same timeline on both. The fake's routes are the ones those types declare; the
 * location middleware (`location[directory]` query, else the `x-opencode-directory` header, else
 * the server's cwd) is upstream's packages/opencode/src/server/routes/instance/httpapi/groups/v2/
 * location.ts at 0cab11f26bc7b4aef3ab14cb5b5293d63ef6a1ef.
 */
import { readFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Backend, Interrupt, TimelineEvent } from "@/lib/model";
import { until } from "@/testkit/until";
import type { EventSink, LoadedSession } from "../types";
import { OpencodeAdapter } from "./adapter";

process.env.SWITCHBOARD_LOG ??= "silent";

const S = "ses_de8db46fbffeJ6yitaNihKmQ4n";
const DIR = "/tmp/switchboard-ws-fake";
const fixture = (name: string) => readFileSync(path.join(__dirname, "fixtures", name), "utf8");
type Frame = { id: string; type: string; data: Record<string, unknown> };
const frames = (name: string): Frame[] =>
  fixture(name)
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Frame);

/** After these the server waits for the console's answer before it goes on. */
const ASKS = new Set(["permission.v2.asked", "question.v2.asked", "form.created"]);

interface FakeApi {
  url: string;
  /** `METHOD path` of every request, with its `x-opencode-directory` header and the location it resolved. */
  asked: { route: string; header?: string; location: string }[];
  /** The bodies POSTed to answer requests, by path. */
  answers: Map<string, unknown>;
  /** Sends the next frames, up to and including the next request (or the end). */
  play(): void;
  done(): boolean;
  close(): Promise<void>;
}

async function startFake(generation: "1.18" | "2"): Promise<FakeApi> {
  const doc = fixture(generation === "2" ? "api-doc-2.json" : "api-doc-1.18.json");
  const turn = frames(generation === "2" ? "api-turn-2.jsonl" : "api-turn-1.18.jsonl");
  const streams = new Set<http.ServerResponse>();
  let next = 0;
  /** What the server lists as pending: a request from its frame until it is answered. */
  const pending = { permission: [] as unknown[], question: [] as unknown[], form: [] as unknown[] };
  const fake: FakeApi = {
    url: "",
    asked: [],
    answers: new Map(),
    play() {
      while (next < turn.length) {
        const f = turn[next++]!;
        for (const s of streams) s.write(`id: ${f.id}\ndata: ${JSON.stringify(f)}\n\n`);
        if (f.type === "permission.v2.asked") pending.permission = [f.data];
        if (f.type === "question.v2.asked") pending.question = [f.data];
        if (f.type === "form.created") pending.form = [f.data.form];
        if (ASKS.has(f.type)) return;
      }
    },
    done: () => next >= turn.length,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://fake");
    const header = req.headers["x-opencode-directory"];
    // location.ts: `location[directory]` in the query, else the header, else the server's cwd.
    const location =
      url.searchParams.get("location[directory]") || (typeof header === "string" ? header : "") || "/cwd";
    fake.asked.push({
      route: `${req.method} ${url.pathname}`,
      ...(typeof header === "string" ? { header } : {}),
      location,
    });
    const json = (status: number, body: unknown) =>
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    const answer = (then: () => void) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString()));
      req.on("end", () => {
        fake.answers.set(url.pathname, body ? JSON.parse(body) : undefined);
        pending.permission = pending.question = pending.form = [];
        res.writeHead(204).end();
        then();
      });
    };
    const p = url.pathname;
    if (p === "/doc") return res.writeHead(200, { "content-type": "application/json" }).end(doc);
    if (p === "/api/event") {
      res.writeHead(200, { "content-type": "text/event-stream" });
      streams.add(res);
      req.on("close", () => streams.delete(res));
      const hello = {
        id: "evt_0000",
        type: "server.connected",
        data: {},
        ...(generation === "2" ? { created: 1 } : {}),
      };
      res.write(`id: evt_0000\ndata: ${JSON.stringify(hello)}\n\n`);
      return;
    }
    if (p === "/api/session/active") return json(200, { data: {} });
    if (p === "/api/location") return json(200, { directory: location, project: { directory: location, id: "p" } });
    if (p === "/api/session" && req.method === "GET") return json(200, { data: [], cursor: {} });
    if (p === "/api/permission/request")
      return json(200, { location: { directory: location }, data: pending.permission });
    if (p === "/api/question/request") return json(200, { location: { directory: location }, data: pending.question });
    // Declared by upstream main only (V2FormRequestListData): 1.18 has no forms.
    if (p === "/api/form/request" && generation === "2")
      return json(200, { location: { directory: location }, data: pending.form });
    if (p === `/api/session/${S}`)
      return json(200, {
        data: {
          id: S,
          projectID: "p",
          cost: 0,
          tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
          time: { created: 1, updated: 1 },
          title: "New session",
          location: { directory: DIR },
        },
      });
    if (p === `/api/session/${S}/message`) return json(200, { data: [], cursor: {} });
    if (p === "/api/permission/saved") return json(200, { data: [] });
    if (req.method === "POST" && p === `/api/session/${S}/permission/per_1/reply`) return answer(() => fake.play());
    if (req.method === "POST" && generation === "1.18" && p === `/api/session/${S}/question/que_1/reply`)
      return answer(() => fake.play());
    if (req.method === "POST" && generation === "2" && p === `/api/session/${S}/form/frm_1/reply`)
      return answer(() => fake.play());
    json(404, { _tag: "NotFound", message: "Not Found" });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}

class RecordingSink implements EventSink {
  events: TimelineEvent[] = [];
  backends: Backend[] = [];
  publish(_b: string, _s: string, event: TimelineEvent) {
    this.events.push(event);
  }
  backendChanged(b: Backend) {
    this.backends.push(b);
  }
  openSessions() {
    return [S];
  }
  reconciled = 0;
  reconcile(_b: string, _s: string, _fresh: LoadedSession) {
    this.reconciled++;
  }
  interrupts(): Interrupt[] {
    return this.events.flatMap((e) => (e.type === "interrupt.requested" ? [e.interrupt] : []));
  }
}

const opened: { adapter: OpencodeAdapter; fake: FakeApi }[] = [];
afterEach(async () => {
  for (const { adapter, fake } of opened.splice(0)) {
    await adapter.stop();
    await fake.close();
  }
});

/** Runs the fixture's turn through the adapter (contract detected), answering as a user would. */
async function runTurn(generation: "1.18" | "2") {
  const fake = await startFake(generation);
  const sink = new RecordingSink();
  const adapter = new OpencodeAdapter({ id: "oc", label: "OpenCode", baseUrl: fake.url, directory: DIR }, sink);
  opened.push({ adapter, fake });
  await adapter.start();
  await until(() => adapter.info().status === "ready", "the /api event stream");
  // The reconcile on connect re-reads the pending lists: a read that crossed the turn's frames
  // would be stale (a request it did not list yet is taken as answered elsewhere). Let it finish.
  await until(() => sink.reconciled > 0, "the reconcile on connect");
  await adapter.loadSession(S);
  fake.play();
  await until(() => sink.interrupts().length === 1, "the permission card");
  await adapter.answerInterrupt(S, "per_1", { decision: "allow_once" });
  await until(() => sink.interrupts().length === 2, "the question");
  const question = sink.interrupts()[1]!;
  await adapter.answerInterrupt(S, question.id, { answers: [["Blue"]] });
  await until(() => {
    const last = sink.events.at(-1);
    return fake.done() && last?.type === "session.status" && last.status === "idle";
  }, "the turn's end");
  return { fake, sink, adapter, question };
}

/** The timeline without the interrupts' own ids and the times the console stamps them with. */
function timeline(events: TimelineEvent[]) {
  return events.map((e) => {
    if (e.type === "interrupt.requested") return { type: e.type, kind: e.interrupt.kind, title: e.interrupt.title };
    if (e.type === "interrupt.resolved") return { type: e.type, outcome: e.outcome };
    return e;
  });
}

describe("OpenCode /api: both generations of the event types, chosen from /doc", () => {
  it("upstream main's frames give the 1.18 turn's timeline, ending idle on session.execution.settled", async () => {
    const old = await runTurn("1.18");
    const next = await runTurn("2");
    expect(old.adapter.info().protocol).toBe("/api (OpenCode 2), detected");
    expect(next.adapter.info().protocol).toBe("/api (OpenCode 2, upstream main's events), detected");
    expect(timeline(next.sink.events)).toEqual(timeline(old.sink.events));

    const ev = next.sink.events;
    const blocks = ev.flatMap((e) => (e.type === "block.updated" ? [e.block] : []));
    expect(blocks.findLast((b) => b.kind === "reasoning")).toMatchObject({ text: "Listing first." });
    expect(blocks.filter((b) => b.kind === "text").map((b) => (b.kind === "text" ? b.text : ""))).toContain(
      "I will list them.",
    );
    expect(blocks.findLast((b) => b.kind === "tool")).toMatchObject({
      tool: "bash",
      status: "completed",
      output: "a.txt\nb.txt\n",
      exitCode: 0,
      input: { command: "ls" },
    });
    // The user's message, from the prompt `session.prompt.admitted` carried (and dated), shown when promoted.
    expect(ev.find((e) => e.type === "message.updated" && e.message.role === "user")).toMatchObject({
      message: { id: "msg_21724c3840001pUzdcpelAar2th", createdAt: 1780000000000 },
    });
    // The time is the envelope's `created`.
    expect(ev.find((e) => e.type === "message.updated" && e.message.role === "assistant")).toMatchObject({
      message: { createdAt: 1780000000020, model: { id: "fake-model", provider: "fake" }, agent: "build" },
    });
    expect(
      ev.filter((e) => e.type === "interrupt.resolved").map((e) => e.type === "interrupt.resolved" && e.outcome),
    ).toEqual(["once", "answered"]);
    // The turn ends on `session.execution.settled`, not on the step that ended it.
    expect(ev.at(-1)).toEqual({ type: "session.status", status: "idle" });
    expect(ev.filter((e) => e.type === "session.status" && e.status === "idle")).toHaveLength(1);
  });

  it("a form is asked as a question and answered through the form's own route, with the options' values", async () => {
    const { fake, question } = await runTurn("2");
    expect(question).toMatchObject({
      id: "frm_1",
      kind: "question",
      title: "Colour: Which colour?",
      questions: [
        {
          header: "Colour",
          question: "Which colour?",
          options: [{ label: "Red" }, { label: "Blue", description: "The sea" }],
          custom: false,
        },
      ],
    });
    expect(fake.answers.get(`/api/session/${S}/form/frm_1/reply`)).toEqual({ answer: { colour: "blue" } });
    // The pending forms are read with the others, and only where the server declares them.
    expect(fake.asked.some((a) => a.route === "GET /api/form/request")).toBe(true);
    const old = await runTurn("1.18");
    expect(old.fake.asked.some((a) => a.route === "GET /api/form/request")).toBe(false);
  });

  it("on upstream main's generation the project's directory goes in the x-opencode-directory header", async () => {
    const { fake, adapter } = await runTurn("2");
    await adapter.listSessions({ limit: 20 });
    for (const route of [
      "GET /api/event",
      "GET /api/location",
      "GET /api/session",
      "GET /api/permission/request",
      "GET /api/form/request",
    ]) {
      const req = fake.asked.find((a) => a.route === route);
      expect(req, route).toMatchObject({ header: DIR, location: DIR });
    }
    // 1.18 is asked as before: no header (its location comes from the query).
    const old = await runTurn("1.18");
    await old.adapter.listSessions({ limit: 20 });
    expect(old.fake.asked.filter((a) => a.header !== undefined)).toEqual([]);
  });
});
