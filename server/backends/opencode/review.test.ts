/**
 * Session tree and review on real OpenCode captures: per-turn diffs on user messages, revert and
 * the drop at the next prompt, compaction markers, forks and children, todos, models and agents.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { AgentList, ModelList } from "@/lib/api";
import { MessageInfo, type Session, type TimelineEvent } from "@/lib/model";
import { applyAll, emptyState, type SessionState } from "@/lib/timeline/reducer";
import { currentContext, revertIndex, turns } from "@/lib/timeline/selectors";
import { normalizeEvent, toAgentList, toFileDiffs, toModelList, toSession, toTodos, unwrapFrame } from "./normalize";

const dir = path.join(import.meta.dirname, "fixtures");
const json = (f: string): unknown => JSON.parse(fs.readFileSync(path.join(dir, f), "utf8"));

function events(file: string, sessionId: string): TimelineEvent[] {
  return fs
    .readFileSync(path.join(dir, file), "utf8")
    .split("\n")
    .filter((l) => l.startsWith("data: "))
    .flatMap((l) => {
      const u = unwrapFrame(JSON.parse(l.slice(6)));
      return u ? normalizeEvent(u.type, u.properties, "oc", 1000) : [];
    })
    .filter((n) => n.sessionId === sessionId)
    .map((n) => n.event);
}

const WRITE_SESSION = "ses_dfeca1ac6ffekwu9qb90CiXiCx";
const USER = "msg_20135e673001XXCKbWajnURCCF";
const base: Session = { id: WRITE_SESSION, backendId: "oc", title: "t", createdAt: 0, updatedAt: 0, status: "idle" };
const play = (
  files: string[],
  sessionId = WRITE_SESSION,
  from: SessionState = { ...emptyState, session: { ...base, id: sessionId } },
) => files.reduce((s, f) => applyAll(s, events(f, sessionId)), from);

describe("per-turn changes", () => {
  it("a turn that wrote a file carries its change on the user message, without the patch", () => {
    const s = play(["sse-write.txt"]);
    const user = s.messages.find((m) => m.id === USER)!;
    expect(user.role).toBe("user");
    expect(user.diffs).toEqual([{ path: "hello.txt", status: "added", additions: 1, deletions: 0 }]);
    expect(MessageInfo.safeParse(user).success).toBe(true);
    const [turn] = turns(s.messages);
    expect(turn!.user.id).toBe(USER);
    expect(turn!.end).toBe(s.messages.length - 1);
    expect(turn!.totals).toEqual({ files: 1, additions: 1, deletions: 0 });
    // Assistant messages point at the user message they answer.
    expect(s.messages.filter((m) => m.role === "assistant").every((m) => m.parentId === USER)).toBe(true);
  });

  it("diff route items map to FileDiff with the patch", () => {
    const raw = [
      { file: "a.txt", patch: "@@ -1 +1 @@\n-a\n+b\n", additions: 1, deletions: 1, status: "modified" },
      { file: "gone.txt", status: "deleted" },
      { nope: 1 },
    ];
    expect(toFileDiffs(raw)).toEqual([
      { path: "a.txt", status: "modified", additions: 1, deletions: 1, patch: "@@ -1 +1 @@\n-a\n+b\n" },
      { path: "gone.txt", status: "deleted", additions: 0, deletions: 0, patch: "" },
    ]);
    expect(toFileDiffs("garbage")).toEqual([]);
  });
});

describe("revert", () => {
  it("revert marks the tail from the user message; unrevert clears it", () => {
    const written = play(["sse-write.txt"]);
    // The capture holds the revert, then the unrevert: two session updates.
    const updates = events("sse-revert.txt", WRITE_SESSION).filter((e) => e.type === "session.updated");
    expect(updates).toHaveLength(2);
    const reverted = applyAll(written, [updates[0]!]);
    expect(reverted.session?.revert?.messageId).toBe(USER);
    expect(revertIndex(reverted.messages, reverted.session?.revert)).toBe(0);
    // Nothing is dropped yet: the messages stay until the next prompt.
    expect(reverted.messages.length).toBe(written.messages.length);

    const back = applyAll(reverted, [updates[1]!]);
    expect(back.session?.revert).toBeUndefined();
    expect(revertIndex(back.messages, back.session?.revert)).toBe(-1);
    const unrevert = toSession(json("unrevert.json"), "oc")!;
    expect(unrevert.revert).toBeUndefined();
  });

  it("the next prompt drops the reverted messages for good and clears the revert", () => {
    const written = play(["sse-write.txt"]);
    const reverted = applyAll(written, [
      events("sse-revert.txt", WRITE_SESSION).find((e) => e.type === "session.updated")!,
    ]);
    expect(reverted.session?.revert).toBeDefined();
    const before = reverted.messages.map((m) => m.id);
    const after = play(["sse-after-revert.txt"], WRITE_SESSION, reverted);
    for (const id of before) expect(after.messages.some((m) => m.id === id)).toBe(false);
    expect(after.session?.revert).toBeUndefined();
    expect(after.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(revertIndex(after.messages, after.session?.revert)).toBe(-1);
  });

  it("the revert capture maps to a session with the reverted message and the diff", () => {
    const s = toSession(json("revert.json"), "oc")!;
    expect(s.revert).toMatchObject({ messageId: USER });
    expect(s.revert?.diff).toContain("deleted file mode");
    expect(s.usage).toMatchObject({ inputTokens: 4971, outputTokens: 32 });
  });

  it("a revert of a message that is not loaded hides everything newer", () => {
    const s = play(["sse-write.txt"]);
    expect(revertIndex(s.messages, { messageId: "msg_0000" })).toBe(0);
    expect(revertIndex(s.messages, { messageId: "msg_zzzz" })).toBe(-1);
  });
});

describe("compaction", () => {
  const SID = "ses_dfec9907affe5mC9LnioocYqh6";
  it("summarize adds a user message with a compaction marker and a summary reply", () => {
    const s = play(["sse-summarize.txt"], SID);
    const marker = s.messages
      .flatMap((m) => m.blocks.map((b) => ({ m, b })))
      .find(({ b }) => b.kind === "notice" && b.code === "compaction");
    expect(marker?.m.role).toBe("user");
    expect(marker?.b).toMatchObject({ kind: "notice", level: "info", text: "Conversation compacted" });
    const summary = s.messages.find((m) => m.summary);
    expect(summary?.role).toBe("assistant");
    expect(summary?.agent).toBe("compaction");
    expect(currentContext(s.messages)?.message.id).toBe(summary?.id);
  });
});

describe("todos", () => {
  it("todo.updated and the todo route give the same list", () => {
    const s = play(["sse-todo.txt"], "ses_dfec9907affe5mC9LnioocYqh6");
    expect(s.todos.length).toBeGreaterThan(0);
    expect(s.todos.every((t) => typeof t.content === "string" && typeof t.status === "string")).toBe(true);
    expect(toTodos(json("todo.json"))).toEqual([
      { content: "Write the fake test", status: "in_progress", priority: "high" },
      { content: "Check the results", status: "pending", priority: "medium" },
    ]);
  });
});

describe("forks and children", () => {
  it("a fork is a root session with no parent (lineage is the console's)", () => {
    for (const f of ["fork-at.json", "fork-all.json"]) {
      const s = toSession(json(f), "oc")!;
      expect(s.title).toBe("test text (fork #1)");
      expect(s.parentId).toBeUndefined();
      expect(s.forkedFrom).toBeUndefined();
    }
  });
  it("children are subagent sessions with their parent", () => {
    const kids = (json("children.json") as unknown[]).map((c) => toSession(c, "oc")!);
    expect(kids).toHaveLength(1);
    expect(kids[0]).toMatchObject({
      parentId: "ses_dfec9907affe5mC9LnioocYqh6",
      title: "Sub task (@general subagent)",
    });
  });
});

describe("models and agents", () => {
  it("models carry their context window and the default", () => {
    const list = toModelList(json("config_providers.json"));
    expect(ModelList.safeParse(list).success).toBe(true);
    expect(list.items).toEqual([
      {
        provider: "fake",
        providerLabel: "Fake LLM",
        id: "fake-model",
        label: "Fake Model",
        isDefault: true,
        contextWindow: 128000,
      },
    ]);
    expect(list.default).toEqual({ provider: "fake", id: "fake-model" });
    expect(toModelList(null)).toEqual({ items: [] });
  });
  it("the configured model is the default, not OpenCode's per-provider ranking", () => {
    const providers = {
      providers: [
        { id: "fake", name: "Scripted", models: { "fake-model": { name: "One" }, "fake-model-2": { name: "Two" } } },
      ],
      default: { fake: "fake-model-2" },
    };
    const list = toModelList(providers, json("config.json"));
    expect(list.default).toEqual({ provider: "fake", id: "fake-model" });
    expect(list.items.filter((m) => m.isDefault).map((m) => m.id)).toEqual(["fake-model"]);
    // A configured model that is not listed falls back to the provider default.
    expect(toModelList(providers, { model: "gone/model" }).default).toEqual({ provider: "fake", id: "fake-model-2" });
  });
  it("agents are the visible primary ones, build by default", () => {
    const list = toAgentList(json("agent.json"));
    expect(AgentList.safeParse(list).success).toBe(true);
    expect(list.items.map((a) => a.id)).toEqual(["build", "plan"]);
    expect(list.default).toBe("build");
    expect(list.items[1]!.description).toMatch(/Plan mode/);
    expect(toAgentList({})).toEqual({ items: [] });
  });
});
