/**
 * The store on PostgreSQL (`SWITCHBOARD_DATABASE_URL`, docs/deploy.md): the zot stack's console on
 * a real PostgreSQL server of this worker's own (testkit/postgres-server.ts; nothing mocked at
 * the SQL level). A session's transcript, a frozen share, a redaction pattern, a backend added in
 * the console and the search index are written there; a console started again on an empty data
 * folder has them all, and no SQLite file was made.
 */
import fs from "node:fs";
import path from "node:path";
import pg from "pg";
import type { CreatedShare, RedactionPattern, SearchPage, SharedSnapshot } from "../lib/api";
import { startConsole } from "../testkit/console";
import { freePort } from "../testkit/opencode-server";
import { SessionPage } from "./pages/session-page";
import { expect, test } from "./fixtures/zot";
import { ZOT_ID } from "../testkit/fake-zot-stack";

test.use({ zotOnPostgres: true });

test.describe("the store on PostgreSQL", () => {
  test("a console on an empty data folder keeps the transcript, shares, patterns, backends and search index it wrote to PostgreSQL", async ({
    page,
    request,
    zotApi,
    zotStack,
  }) => {
    const reply = "The tangerine report is filed under quarterly.";
    zotStack.model.enqueue({ text: reply });
    const s = await zotApi.createSession("postgres session");
    const sp = await SessionPage.open(page, ZOT_ID, s.id);
    await sp.ask("File the tangerine report.", reply);

    const api = (p: string) => `${zotStack.url}${p}`;
    const pattern = await request.post(api("/api/shares/patterns"), {
      data: { label: "Quarter", pattern: "quarterly" },
    });
    expect(pattern.status(), await pattern.text()).toBe(201);
    const { id: patternId } = (await pattern.json()) as RedactionPattern;
    const created = await request.post(api("/api/shares"), {
      data: { backendId: ZOT_ID, sessionId: s.id, live: false },
    });
    expect(created.status(), await created.text()).toBe(201);
    const share = (await created.json()) as CreatedShare;
    const added = await request.post(api("/api/backends"), {
      data: { kind: "zot", label: "zot added in the console", config: { command: ["zot", "rpc"] } },
    });
    expect(added.status(), await added.text()).toBe(201);
    const { id: addedId } = (await added.json()) as { id: string };
    // The live index is written a second after the events (its debounce).
    await expect
      .poll(async () => ((await (await request.get(api("/api/search?q=tangerine"))).json()) as SearchPage).items.length)
      .toBe(2);

    // The rows are PostgreSQL's: read them with a client of our own.
    const db = new pg.Client({ connectionString: zotStack.postgres!.url });
    await db.connect();
    try {
      const count = async (sql: string, args: unknown[] = []) =>
        Number((await db.query<{ n: string }>(`SELECT count(*) AS n FROM ${sql}`, args)).rows[0]?.n);
      expect(await count("transcripts WHERE backend_id = $1 AND session_id = $2", [ZOT_ID, s.id])).toBe(1);
      expect(await count("shares WHERE id = $1", [share.id])).toBe(1);
      expect(await count("redaction_patterns WHERE id = $1", [patternId])).toBe(1);
      expect(await count("backends WHERE id = $1", [addedId])).toBe(1);
    } finally {
      await db.end();
    }

    await zotStack.restartConsole({ freshDataDir: true });
    expect(fs.existsSync(path.join(zotStack.dataDir, "switchboard.db"))).toBe(false);

    // The backend added in the console is listed again.
    const backends = (await (await request.get(api("/api/backends"))).json()) as { items: { id: string }[] };
    expect(backends.items.map((b) => b.id)).toContain(addedId);
    // The session and its transcript.
    const listed = (await (await request.get(api(`/api/backends/${ZOT_ID}/sessions`))).json()) as {
      items: { id: string }[];
    };
    expect(listed.items.map((x) => x.id)).toContain(s.id);
    const snap = await zotApi.snapshot(s.id);
    expect(snap.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    // The frozen share serves its stored snapshot, with the pattern applied.
    const shared = await fetch(api(`/api/shares/public/${share.token}/snapshot`));
    expect(shared.status).toBe(200);
    const body = JSON.stringify((await shared.json()) as SharedSnapshot);
    expect(body).toContain("tangerine report");
    expect(body).not.toContain("quarterly");
    // The search index.
    const hits = (await (await request.get(api("/api/search?q=tangerine"))).json()) as SearchPage;
    expect(hits.items.map((h) => h.sessionId)).toEqual([s.id, s.id]);
    // Revoked: the link is dead at once, and after another start.
    expect((await request.delete(api(`/api/shares/${share.id}`))).status()).toBe(200);
    expect((await fetch(api(`/api/shares/public/${share.token}/snapshot`))).status).toBe(404);
    await zotStack.restartConsole();
    expect((await fetch(api(`/api/shares/public/${share.token}/snapshot`))).status).toBe(404);

    // And the conversation goes on.
    zotStack.model.enqueue({ text: "Filed twice now." });
    await sp.goto(ZOT_ID, s.id);
    await expect(sp.assistantText().last()).toHaveText(reply);
    await sp.prompt("File it again.");
    await expect(sp.assistantText().last()).toHaveText("Filed twice now.", { timeout: 30_000 });
  });

  test("a PostgreSQL that does not answer, a wrong URL, replica mode without its address, its replica key or its secret key, or a malformed secret key stops the start with one sentence", async () => {
    const cases: [Record<string, string>, string][] = [
      [
        { SWITCHBOARD_DATABASE_URL: `postgres://switchboard@127.0.0.1:${await freePort()}/none` },
        "could not open the PostgreSQL store (SWITCHBOARD_DATABASE_URL): connect ECONNREFUSED",
      ],
      [
        { SWITCHBOARD_DATABASE_URL: "mysql://db/x" },
        "SWITCHBOARD_DATABASE_URL must be a postgres:// or postgresql:// URL",
      ],
      [
        { SWITCHBOARD_DATABASE_URL: "postgres://db/x", SWITCHBOARD_REDIS_URL: "redis://127.0.0.1:6379" },
        "SWITCHBOARD_REDIS_URL needs SWITCHBOARD_REPLICA_URL",
      ],
      [
        {
          SWITCHBOARD_DATABASE_URL: "postgres://db/x",
          SWITCHBOARD_REDIS_URL: "redis://127.0.0.1:6379",
          SWITCHBOARD_REPLICA_URL: "http://127.0.0.1:1",
        },
        "SWITCHBOARD_REPLICA_KEY is not set: replicas sign their requests to each other with it",
      ],
      [
        {
          SWITCHBOARD_DATABASE_URL: "postgres://db/x",
          SWITCHBOARD_REDIS_URL: "redis://127.0.0.1:6379",
          SWITCHBOARD_REPLICA_URL: "http://10.0.0.5:3000",
          SWITCHBOARD_REPLICA_KEY: "e2e-replica-key-0123456789abcdef-0123456789",
        },
        "SWITCHBOARD_REPLICA_URL must use https:// (http:// only to a loopback address",
      ],
      [
        {
          SWITCHBOARD_DATABASE_URL: "postgres://db/x",
          SWITCHBOARD_REDIS_URL: "redis://127.0.0.1:6379",
          SWITCHBOARD_REPLICA_URL: "http://127.0.0.1:1",
          SWITCHBOARD_REPLICA_KEY: "e2e-replica-key-0123456789abcdef-0123456789",
        },
        "replica mode (SWITCHBOARD_REDIS_URL) needs SWITCHBOARD_SECRET_KEY",
      ],
      [{ SWITCHBOARD_SECRET_KEY: "not-a-key" }, "SWITCHBOARD_SECRET_KEY must be 32 random bytes in base64"],
    ];
    for (const [env, sentence] of cases) {
      const started = await startConsole({
        env: { SWITCHBOARD_TOKEN: "e2e-start-error-token-0123456789abcdef", ...env },
      }).then(
        (c) => c,
        (e: Error) => e,
      );
      if (!(started instanceof Error)) {
        await started.stop();
        throw new Error(`the console started with ${JSON.stringify(env)}`);
      }
      expect(started.message).toContain("console exited early (1)");
      expect(started.message).toContain(`[switchboard] cannot start: ${sentence}`);
    }
  });
});
