import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CreateSessionBody, PromptBody } from "@/lib/api";
import type { Backend, Capabilities, Message, Session } from "@/lib/model";
import { until } from "@/testkit/until";
import type { ConsoleApp } from "../app";
import type { BackendAdapter, LoadedSession } from "../backends/types";
import { fileUrl } from "@/lib/mentions";
import { isApiError } from "../errors";
import { Hub } from "../hub/hub";
import { Lineage } from "../lineage";
import { Attribution } from "../sessions/attribution";
import { SqliteStore } from "../store/sqlite-store";
import { CompareService } from "./service";

/**
 * The compare service on real git (a repository with a commit, worktrees beside it) and in-process
 * agents: each writes its own content to the same file in its session's directory when prompted, the
 * way the e2e's real agents do on the scripted model. The hub and the store are the console's own.
 */

const CAPS: Capabilities = {
  fork: false,
  revert: false,
  diff: false,
  compact: false,
  models: false,
  share: false,
  history: false,
  abort: false,
  rename: false,
  delete: true,
  search: false,
  directories: true,
  interrupts: { permission: false, question: false, input: false },
};

class WritingAgent implements BackendAdapter {
  sessions = new Map<string, { session: Session; messages: Message[] }>();
  prompts: { sessionId: string; body: PromptBody }[] = [];
  status: Backend["status"] = "ready";
  private n = 0;
  onTurn?: (sessionId: string, status: "busy" | "idle") => void;
  /** Capabilities on top of CAPS (attachments, mentions). */
  extraCaps: Partial<Capabilities> = {};
  constructor(
    readonly id: string,
    private content: string,
    private kind: Backend["kind"] = "opencode",
  ) {}
  info(): Backend {
    return {
      id: this.id,
      kind: this.kind,
      label: `Agent ${this.id}`,
      status: this.status,
      capabilities: { ...CAPS, directories: this.kind !== "a2a", ...this.extraCaps },
    };
  }
  async start() {}
  async stop() {}
  async listSessions() {
    return { items: [...this.sessions.values()].map((s) => s.session) };
  }
  async getSession(id: string) {
    return this.sessions.get(id)!.session;
  }
  async loadSession(id: string): Promise<LoadedSession> {
    const s = this.sessions.get(id)!;
    return { session: s.session, messages: s.messages, interrupts: [], todos: [] };
  }
  async createSession(input: CreateSessionBody): Promise<Session> {
    const id = `ses_${this.id}_${++this.n}`;
    const session: Session = {
      id,
      backendId: this.id,
      title: input.title ?? "",
      createdAt: 1,
      updatedAt: 1,
      status: "idle",
      ...(input.directory ? { directory: input.directory } : {}),
    };
    this.sessions.set(id, { session, messages: [] });
    return session;
  }
  async deleteSession(id: string) {
    this.sessions.delete(id);
  }
  async prompt(sessionId: string, body: PromptBody): Promise<void> {
    this.prompts.push({ sessionId, body });
    const s = this.sessions.get(sessionId)!;
    this.onTurn?.(sessionId, "busy");
    fs.writeFileSync(path.join(s.session.directory!, "shared.txt"), this.content);
    s.messages.push({
      id: `m${s.messages.length}`,
      sessionId,
      role: "assistant",
      createdAt: 2,
      completedAt: 3,
      blocks: [{ id: "t", kind: "text", text: `Wrote ${this.content.trim()}` }],
      usage: { inputTokens: 10, outputTokens: 5 },
    });
    this.onTurn?.(sessionId, "idle");
  }
  async abort() {}
  subscribe() {
    return () => {};
  }
}

const sh = (cwd: string, ...args: string[]) => execFileSync("git", ["-C", cwd, ...args], { encoding: "utf8" }).trim();
let root: string;
let repo: string;
let store: SqliteStore;
let agents: Map<string, WritingAgent>;
let service: CompareService;

beforeAll(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "sb-compare-")));
  repo = path.join(root, "app");
  execFileSync("git", ["init", "-q", "-b", "main", repo]);
  sh(repo, "config", "user.name", "Owner");
  sh(repo, "config", "user.email", "owner@example.test");
  fs.writeFileSync(path.join(repo, "shared.txt"), "base\n");
  fs.writeFileSync(path.join(repo, "check.sh"), 'grep -q "^alpha" shared.txt\n');
  sh(repo, "add", "-A");
  sh(repo, "commit", "-q", "-m", "initial");
  store = new SqliteStore(path.join(root, "store.db"));
  agents = new Map([
    ["a", new WritingAgent("a", "alpha\n")],
    ["b", new WritingAgent("b", "beta\n")],
    ["c", new WritingAgent("c", "gamma\n")],
    ["remote", new WritingAgent("remote", "x\n", "a2a")],
    ["elsewhere", new WritingAgent("elsewhere", "x\n")],
  ]);
  const lineage = new Lineage(store);
  const hub = new Hub(
    (id) => agents.get(id),
    (b, s) => lineage.decorate(b, s),
  );
  const backends = {
    get: (id: string) => agents.get(id),
    require: (id: string) => agents.get(id)!,
    runsHere: (id: string) => id !== "elsewhere",
  } as unknown as ConsoleApp["backends"];
  const attribution = new Attribution(store);
  service = new CompareService({
    store,
    hub,
    backends,
    config: { dataDir: path.join(root, "data"), workspace: repo, workspaceRoots: [root], envBackends: [] },
    attribution,
  });
  // The agents' turns reach the service as the hub tells it of them.
  for (const a of agents.values())
    a.onTurn = (sessionId, status) => service.event(a.id, sessionId, { type: "session.status", status }, undefined);
});
afterAll(() => {
  store.close();
  fs.rmSync(root, { recursive: true, force: true });
});

async function refusal(p: Promise<unknown>): Promise<{ code: string; message: string }> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isApiError(err)) throw new Error(`expected an ApiError, got ${String(err)}`);
  return { code: err.code, message: err.message };
}

describe("one task on several agents", () => {
  it("refuses, before anything starts, a target that is not ready or cannot use a worktree, and a workspace that is no repository", async () => {
    agents.get("b")!.status = "down";
    expect(
      (await refusal(service.create({ prompt: "x", targets: [{ backendId: "a" }, { backendId: "b" }] }, undefined)))
        .message,
    ).toMatch(/not ready/);
    agents.get("b")!.status = "ready";
    expect(
      (
        await refusal(
          service.create({ prompt: "x", targets: [{ backendId: "a" }, { backendId: "remote" }] }, undefined),
        )
      ).message,
    ).toMatch(/cannot use a worktree/);
    expect(
      (
        await refusal(
          service.create({ prompt: "x", targets: [{ backendId: "a" }, { backendId: "elsewhere" }] }, undefined),
        )
      ).message,
    ).toMatch(/another replica/);
    const plain = fs.mkdtempSync(path.join(root, "plain-"));
    expect(
      (
        await refusal(
          service.create(
            { prompt: "x", directory: plain, targets: [{ backendId: "a" }, { backendId: "b" }] },
            undefined,
          ),
        )
      ).message,
    ).toMatch(/not a git repository/);
    expect(agents.get("a")!.sessions.size).toBe(0);
    expect(sh(repo, "branch", "--list", "switchboard/*")).toBe("");
  });

  it("three agents, three worktrees from one base; the tests run as each turn ends; diffs side by side; keep merges one and archives the rest", async () => {
    const g = await service.create(
      {
        prompt: "Write your name into shared.txt",
        targets: [{ backendId: "a" }, { backendId: "b" }, { backendId: "c", model: { provider: "fake", id: "m2" } }],
        testCommand: "sh check.sh",
      },
      { id: "ada", name: "Ada" },
    );
    expect(g.members).toHaveLength(3);
    const base = sh(repo, "rev-parse", "HEAD");
    expect(g.base).toBe(base);
    const paths = g.members.map((m) => m.worktree.path);
    expect(new Set(paths).size).toBe(3);
    for (const m of g.members) expect(m.worktree.base).toBe(base);
    expect(paths.map((p) => fs.readFileSync(path.join(p, "shared.txt"), "utf8"))).toEqual([
      "alpha\n",
      "beta\n",
      "gamma\n",
    ]);
    expect(fs.readFileSync(path.join(repo, "shared.txt"), "utf8")).toBe("base\n");
    expect(agents.get("c")!.prompts[0]!.body).toMatchObject({
      parts: [{ type: "text", text: "Write your name into shared.txt" }],
      model: { provider: "fake", id: "m2" },
    });

    await until(() => service.read(g.id).members.every((m) => m.test?.state === "done"), "every test run");
    expect(service.read(g.id).members.map((m) => m.test!.exitCode)).toEqual([0, 1, 1]);

    const view = await service.view(g.id);
    expect(view.columns.map((c) => c.files)).toEqual([
      [{ path: "shared.txt", status: "modified" }],
      [{ path: "shared.txt", status: "modified" }],
      [{ path: "shared.txt", status: "modified" }],
    ]);
    expect(view.columns.map((c) => c.reply)).toEqual(["Wrote alpha", "Wrote beta", "Wrote gamma"]);
    expect(view.columns[0]!.tokens).toEqual({ input: 10, output: 5 });

    const diffs = await service.diff(g.id, "shared.txt");
    expect(diffs.map((d) => [d.additions, d.deletions])).toEqual([
      [1, 1],
      [1, 1],
      [1, 1],
    ]);
    expect(diffs[1]!.patch).toContain("+beta");
    expect((await refusal(service.diff(g.id, "../../etc/passwd"))).code).toBe("forbidden");

    // A reload (a new service on the same store) sees the same group.
    expect(service.list().map((x) => x.id)).toContain(g.id);

    const kept = await service.keep(g.id, {
      sessionId: g.members[0]!.sessionId,
      how: "merge",
      deleteOtherBranches: false,
    });
    expect(kept.kept).toMatchObject({ sessionId: g.members[0]!.sessionId, how: "merge" });
    expect(fs.readFileSync(path.join(repo, "shared.txt"), "utf8")).toBe("alpha\n");
    expect(kept.members.slice(1).every((m) => m.archived)).toBe(true);
    for (const m of kept.members.slice(1)) {
      expect(fs.existsSync(m.worktree.path)).toBe(false);
      // The archived work is on its branch.
      expect(sh(repo, "show", `${m.worktree.branch}:shared.txt`)).toMatch(/beta|gamma/);
    }
    expect(
      (
        await refusal(
          service.keep(g.id, { sessionId: g.members[1]!.sessionId, how: "merge", deleteOtherBranches: false }),
        )
      ).code,
    ).toBe("conflict");
  });

  it("sends the attached files to every target and each mention as its own worktree's file; refuses, before anything starts, what a target cannot take", async () => {
    const a = agents.get("a")!;
    const c = agents.get("c")!;
    a.extraCaps = {
      attachments: { images: true, files: true },
      mentions: { search: "workspace", carry: "file" },
    };
    c.extraCaps = { attachments: { images: false, files: true }, mentions: { search: "workspace", carry: "text" } };
    const note = {
      type: "file" as const,
      mime: "text/plain",
      url: `data:text/plain;base64,${Buffer.from("The secret is cardamom.").toString("base64")}`,
      filename: "note.txt",
    };
    const png = {
      type: "file" as const,
      mime: "image/png",
      url: "data:image/png;base64,iVBORw0KGgo=",
      filename: "x.png",
    };
    const two = [{ backendId: "a" }, { backendId: "c" }];
    const sessions = () => a.sessions.size + c.sessions.size + agents.get("b")!.sessions.size;
    const before = sessions();
    // b takes no attached files; c takes no images; a file by path; a mention that leads outside.
    expect(
      (
        await refusal(
          service.create({ prompt: "x", parts: [note], targets: [{ backendId: "a" }, { backendId: "b" }] }, undefined),
        )
      ).message,
    ).toMatch(/takes no attached files/);
    expect((await refusal(service.create({ prompt: "x", parts: [png], targets: two }, undefined))).message).toMatch(
      /does not take images/,
    );
    expect(
      (
        await refusal(
          service.create(
            { prompt: "x", parts: [{ type: "file", mime: "text/plain", url: "file:///etc/passwd" }], targets: two },
            undefined,
          ),
        )
      ).message,
    ).toMatch(/mention a file by its path/);
    expect(
      (await refusal(service.create({ prompt: "x", mentions: ["../outside.txt"], targets: two }, undefined))).code,
    ).toBe("forbidden");
    expect(sessions()).toBe(before);

    const g = await service.create(
      { prompt: "Read @shared.txt and the note", parts: [note], mentions: ["shared.txt", "shared.txt"], targets: two },
      undefined,
    );
    const text = { type: "text", text: "Read @shared.txt and the note" };
    // a carries mentions as files: its own worktree's copy; c as the text alone.
    expect(a.prompts.at(-1)!.body.parts).toEqual([
      text,
      note,
      {
        type: "file",
        mime: "text/plain",
        url: fileUrl(g.members[0]!.worktree.path, "shared.txt"),
        filename: "shared.txt",
      },
    ]);
    expect(c.prompts.at(-1)!.body.parts).toEqual([text, note]);
    a.extraCaps = {};
    c.extraCaps = {};
  });

  it("lists the repository's files for a mention in the start form", async () => {
    fs.writeFileSync(path.join(repo, "mention-target.md"), "x\n");
    expect((await service.files({ q: "mention-tar", limit: 5 })).items).toEqual(["mention-target.md"]);
    expect((await refusal(service.files({ q: "", limit: 5, directory: os.tmpdir() }))).code).toBe("forbidden");
  });
});
