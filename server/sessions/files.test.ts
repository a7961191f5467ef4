import { testConsoleApp } from "@/testkit/console-app";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { FileSearchResult } from "@/lib/api";
import type { Backend, Capabilities, Session } from "@/lib/model";
import type { ConsoleApp } from "../app";
import type { BackendAdapter, LoadedSession } from "../backends/types";
import { ApiError } from "../errors";
import { Hub } from "../hub/hub";
import { Lineage } from "../lineage";
import { SqliteStore } from "../store/sqlite-store";
import { clearFileListings, listFiles, rankFiles, runRg } from "./files";

const BASE: Capabilities = {
  fork: false,
  revert: false,
  diff: false,
  compact: false,
  models: false,
  share: false,
  history: false,
  abort: false,
  rename: false,
  delete: false,
  search: false,
  directories: false,
  interrupts: { permission: false, question: false, input: false },
};

describe("rankFiles", () => {
  const files = ["src/components/composer.tsx", "README.md", "src/app.ts", "docs/api.md", "lib/compose.ts"];

  it("puts file names starting with the query first, then containing it, then paths, then fuzzy", () => {
    expect(rankFiles(files, "comp", 10)).toEqual(["lib/compose.ts", "src/components/composer.tsx"]);
    expect(rankFiles(files, "api", 10)).toEqual(["docs/api.md"]);
    expect(rankFiles(files, "src/", 10)).toEqual(["src/app.ts", "src/components/composer.tsx"]);
    expect(rankFiles(files, "cmpsr", 10)).toEqual(["src/components/composer.tsx"]);
    expect(rankFiles(files, "zzz", 10)).toEqual([]);
  });

  it("is case-insensitive, lists the shallowest paths for an empty query, and keeps to the limit", () => {
    expect(rankFiles(files, "readme", 10)).toEqual(["README.md"]);
    expect(rankFiles(files, "", 2)).toEqual(["README.md", "src/app.ts"]);
  });
});

describe("rg --files", () => {
  let dir: string;
  let outside: string;
  beforeAll(() => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "sb-files-")));
    outside = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "sb-files-out-")));
    fs.mkdirSync(path.join(dir, "src"));
    fs.writeFileSync(path.join(dir, "src", "a.ts"), "a");
    fs.writeFileSync(path.join(dir, "b.md"), "b");
    fs.writeFileSync(path.join(dir, "skipped.log"), "x");
    fs.writeFileSync(path.join(dir, ".ignore"), "*.log\n");
    fs.writeFileSync(path.join(outside, "secret.txt"), "s");
    fs.symlinkSync(outside, path.join(dir, "link"));
  });
  afterAll(() => {
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(outside, { recursive: true, force: true });
  });
  beforeEach(() => clearFileListings());

  it("lists the directory's files, relative, respecting ignore files and not following symlinks", async () => {
    expect((await runRg(dir)).sort()).toEqual(["b.md", "src/a.ts"]);
  });

  it("stops at the cap", async () => {
    expect(await runRg(dir, { max: 1 })).toHaveLength(1);
  });

  it("says so when ripgrep is missing", async () => {
    await expect(runRg(dir, { command: "rg-not-installed-here" })).rejects.toMatchObject({ code: "conflict" });
  });

  it("reuses a listing briefly", async () => {
    const first = listFiles(dir, 1_000);
    expect(listFiles(dir, 2_000)).toBe(first);
    expect(listFiles(dir, 1_000 + 60_000)).not.toBe(first);
    await first;
  });
});

/* ------------------------------------------------------------------ routes */

class StubAdapter implements BackendAdapter {
  sessions = new Map<string, Session>();
  found: string[] = [];
  prompted = 0;
  findFiles?: (sessionId: string, query: string, limit: number) => Promise<string[]>;
  constructor(
    readonly id: string,
    private caps: Capabilities,
    backendSearch = false,
  ) {
    if (backendSearch) this.findFiles = async () => this.found;
  }
  info(): Backend {
    return { id: this.id, kind: "acp", label: `Agent ${this.id}`, status: "ready", capabilities: this.caps };
  }
  async start() {}
  async stop() {}
  add(id: string, directory?: string): Session {
    const s: Session = {
      id,
      backendId: this.id,
      title: id,
      createdAt: 1,
      updatedAt: 1,
      status: "idle",
      ...(directory ? { directory } : {}),
    };
    this.sessions.set(id, s);
    return s;
  }
  async listSessions() {
    return { items: [...this.sessions.values()] };
  }
  async createSession(): Promise<Session> {
    throw new Error("not here");
  }
  async getSession(id: string) {
    const s = this.sessions.get(id);
    if (!s) throw ApiError.notFound(`Unknown session: ${id}`);
    return s;
  }
  async loadSession(id: string): Promise<LoadedSession> {
    return { session: await this.getSession(id), messages: [], interrupts: [], todos: [] };
  }
  async prompt() {
    this.prompted++;
  }
}

const workspace = new StubAdapter("ws", { ...BASE, mentions: { search: "workspace", carry: "text" } });
const linking = new StubAdapter("link", { ...BASE, mentions: { search: "workspace", carry: "file" } });
const searching = new StubAdapter("oc", { ...BASE, mentions: { search: "backend", carry: "file" } }, true);
const none = new StubAdapter("none", BASE);
const adapters = new Map<string, BackendAdapter>([workspace, linking, searching, none].map((a) => [a.id, a]));

const g = globalThis as typeof globalThis & { __switchboard?: ConsoleApp };
let store: SqliteStore;
let hub: Hub;
let root: string;
let elsewhere: string;

beforeAll(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "sb-files-root-")));
  elsewhere = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "sb-files-else-")));
  fs.mkdirSync(path.join(root, "proj", "src"), { recursive: true });
  fs.writeFileSync(path.join(root, "proj", "src", "composer.tsx"), "x");
  fs.writeFileSync(path.join(root, "proj", "notes.md"), "x");
  fs.writeFileSync(path.join(elsewhere, "composer.tsx"), "x");
  store = new SqliteStore(":memory:");
  const lineage = new Lineage(store);
  hub = new Hub(
    (id) => adapters.get(id),
    (b, s) => lineage.decorate(b, s),
  );
  const backends = {
    require(id: string) {
      const a = adapters.get(id);
      if (!a) throw ApiError.notFound(`Unknown backend: ${id}`);
      return a;
    },
  } as unknown as ConsoleApp["backends"];
  g.__switchboard = testConsoleApp({
    config: { dataDir: path.join(elsewhere, "data"), workspace: root, workspaceRoots: [root], envBackends: [] },
    store,
    hub,
    backends,
    lineage,
  });
  workspace.add("in", path.join(root, "proj"));
  workspace.add("out", elsewhere);
  workspace.add("nodir");
  searching.add("s1", "/srv/remote/proj");
  linking.add("l1", path.join(root, "proj"));
});

afterAll(() => {
  hub.stop();
  store.close();
  delete g.__switchboard;
  fs.rmSync(root, { recursive: true, force: true });
  fs.rmSync(elsewhere, { recursive: true, force: true });
});

const ctx = (backendId: string, sessionId: string) => ({ params: Promise.resolve({ backendId, sessionId }) });
const files = async (backendId: string, sessionId: string, query = "") => {
  const { GET } = await import("@/app/api/backends/[backendId]/sessions/[sessionId]/files/route");
  return GET(new Request(`http://x/api${query}`), ctx(backendId, sessionId));
};
const prompt = async (backendId: string, sessionId: string, body: unknown) => {
  const { POST } = await import("@/app/api/backends/[backendId]/sessions/[sessionId]/prompt/route");
  return POST(
    new Request("http://x/api", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    }),
    ctx(backendId, sessionId),
  );
};

describe("GET …/files", () => {
  it("lists the session directory's files matching q (rg --files within the workspace roots)", async () => {
    const res = await files("ws", "in", "?q=comp&limit=5");
    expect(res.status).toBe(200);
    expect((await res.json()) as FileSearchResult).toEqual({ items: ["src/composer.tsx"], source: "workspace" });
  });

  it("refuses a session directory outside the workspace roots (403)", async () => {
    const res = await files("ws", "out", "?q=comp");
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/outside the workspace roots/);
  });

  it("answers an empty list for a session without a directory", async () => {
    const res = await files("ws", "nodir", "?q=x");
    expect(await res.json()).toEqual({ items: [], source: "workspace" });
  });

  it("asks the backend's own search where it has one, dropping paths that are not relative", async () => {
    searching.found = ["src/a.ts", "/etc/passwd", "../up.txt", "b.md"];
    const res = await files("oc", "s1", "?q=a");
    expect(await res.json()).toEqual({ items: ["src/a.ts", "b.md"], source: "backend" });
  });

  it("is a 409 for a backend that takes no mentions", async () => {
    none.add("n1", path.join(root, "proj"));
    const res = await files("none", "n1", "?q=a");
    expect(res.status).toBe(409);
    expect(await res.json()).toMatchObject({ error: { code: "conflict", details: { capability: "mentions" } } });
  });

  it("validates the query (400): limits, unknown parameters", async () => {
    expect((await files("ws", "in", "?limit=0")).status).toBe(400);
    expect((await files("ws", "in", "?limit=101")).status).toBe(400);
    expect((await files("ws", "in", "?path=/etc")).status).toBe(400);
    expect((await files("ws", "in", "?q=a&q=b")).status).toBe(400);
  });
});

describe("POST …/prompt with mentioned files", () => {
  const part = (p: string) => ({ type: "file", mime: "text/plain", url: pathToFileURL(p).href, filename: "x" });

  it("takes a file:// part inside the session's directory", async () => {
    const before = linking.prompted;
    const res = await prompt("link", "l1", {
      parts: [{ type: "text", text: "see" }, part(path.join(root, "proj/notes.md"))],
    });
    expect(res.status).toBe(202);
    expect(linking.prompted).toBe(before + 1);
  });

  it("refuses one outside it (403), however the path is written", async () => {
    for (const p of [path.join(elsewhere, "composer.tsx"), `${path.join(root, "proj")}/../../etc/passwd`, root]) {
      const res = await prompt("link", "l1", { parts: [part(p)] });
      expect(res.status).toBe(403);
    }
    const raw = await prompt("link", "l1", {
      parts: [{ type: "file", mime: "text/plain", url: `file://${root}/proj/../../x` }],
    });
    expect(raw.status).toBe(403);
  });

  it("resolves links before the check: a mention through a symlink (or a dangling one) to outside is refused (403)", async () => {
    fs.symlinkSync(path.join(elsewhere, "composer.tsx"), path.join(root, "proj", "out-link.tsx"));
    fs.symlinkSync(path.join(elsewhere, "gone.txt"), path.join(root, "proj", "dangling.txt"));
    fs.symlinkSync(elsewhere, path.join(root, "proj", "out-dir"));
    fs.symlinkSync(path.join(root, "proj", "notes.md"), path.join(root, "proj", "in-link.md"));
    const before = linking.prompted;
    for (const p of ["out-link.tsx", "dangling.txt", "out-dir/composer.tsx", "out-dir/missing/x.txt"]) {
      const res = await prompt("link", "l1", { parts: [part(path.join(root, "proj", p))] });
      expect(res.status).toBe(403);
    }
    expect(linking.prompted).toBe(before);
    const ok = await prompt("link", "l1", { parts: [part(path.join(root, "proj", "in-link.md"))] });
    expect(ok.status).toBe(202);
  });

  it("refuses file:// parts for a backend that takes mentions as text (400)", async () => {
    const res = await prompt("ws", "in", { parts: [part(path.join(root, "proj/notes.md"))] });
    expect(res.status).toBe(400);
  });
});
