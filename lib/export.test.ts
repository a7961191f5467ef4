import { describe, expect, it } from "vitest";
import { exportFileName, fenceFor, sessionMarkdown } from "./export";
import type { Message, Session } from "./model";

const session: Session = {
  id: "ses_1",
  backendId: "b",
  title: "Fix the build",
  createdAt: 0,
  updatedAt: 0,
  status: "idle",
  directory: "/w",
  model: { provider: "fake", id: "fake-model" },
  forkedFrom: { sessionId: "ses_0", messageId: "msg_9" },
};
const messages: Message[] = [
  {
    id: "m1",
    sessionId: "ses_1",
    role: "user",
    createdAt: 0,
    blocks: [{ id: "p1", kind: "text", text: "Run the tests" }],
    diffs: [{ path: "a.ts", status: "modified", additions: 2, deletions: 1 }],
  },
  {
    id: "m2",
    sessionId: "ses_1",
    role: "assistant",
    createdAt: 1000,
    model: { provider: "fake", id: "fake-model" },
    usage: { inputTokens: 1200, outputTokens: 30, costUsd: 0.002 },
    blocks: [
      { id: "p2", kind: "reasoning", text: "Think first." },
      {
        id: "p3",
        kind: "tool",
        callId: "c",
        tool: "bash",
        rawTool: "bash",
        status: "completed",
        input: { command: "npm test" },
        output: "ok ``` fence\n",
        exitCode: 0,
      },
      { id: "p4", kind: "text", text: "All **green**." },
      { id: "p5", kind: "notice", level: "info", code: "compaction", text: "Conversation compacted" },
    ],
  },
];

describe("Markdown export", () => {
  it("holds the turns, tools, usage, changes and lineage", () => {
    const md = sessionMarkdown(session, messages, [{ content: "Ship", status: "completed" }], 0);
    expect(md).toContain("# Fix the build");
    expect(md).toContain("- Forked from `ses_0` at `msg_9`");
    expect(md).toContain("## User\n\n<sub>1970-01-01T00:00:00Z</sub>\n\nRun the tests");
    expect(md).toContain("## Assistant");
    expect(md).toContain("fake/fake-model");
    expect(md).toContain("**Tool `bash`** — npm test _(completed, exit 0)_");
    expect(md).toContain("````\nok ``` fence\n````");
    expect(md).toContain("All **green**.");
    expect(md).toContain("_Changed 1 file (+2 −1): `a.ts`_");
    expect(md).toContain("1,200 in · 30 out · $0.0020");
    expect(md).toContain("- [x] Ship");
    expect(md).toContain("> _Conversation compacted_");
  });

  it("fences outgrow the content and file names are safe", () => {
    expect(fenceFor("plain")).toBe("```");
    expect(fenceFor("a ````` b")).toBe("``````");
    expect(exportFileName({ title: "Fix: the ../../etc/passwd build!", id: "ses_1" }, "md")).toBe(
      "Fix-the-etcpasswd-build.md",
    );
    expect(exportFileName({ title: "???", id: "ses_1" }, "json")).toBe("ses_1.json");
  });
});

describe("Markdown export of who did what", () => {
  it("names a prompt's sender and who answered an interrupt, and how", () => {
    const md = sessionMarkdown(
      session,
      [
        { ...messages[0]!, author: { id: "ada", name: "Ada Admin" } },
        {
          ...messages[1]!,
          answered: [
            {
              interruptId: "i1",
              kind: "permission",
              title: "bash: npm test",
              decision: "allow_once",
              answeredBy: { id: "olga", name: "Olga Operator" },
              at: 2000,
            },
          ],
        },
      ],
      [],
      0,
    );
    expect(md).toContain("<sub>sent by Ada Admin · ");
    expect(md).toContain("> _Olga Operator answered “bash: npm test”: allow once_");
  });
});
