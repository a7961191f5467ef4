import { describe, expect, it } from "vitest";
import type { Message } from "@/lib/model";
import { earlierConversation } from "./earlier-turns";

const msg = (id: string, role: Message["role"], text: string, extra: Partial<Message> = {}): Message => ({
  id,
  sessionId: "s",
  role,
  createdAt: Number(id.slice(1)),
  blocks: [{ id: `${id}-b0`, kind: "text", text }],
  ...extra,
});

describe("earlierConversation", () => {
  it("renders every message, oldest first, with tools and how a turn ended", () => {
    const messages: Message[] = [
      msg("m1", "user", "Please create notes.txt"),
      {
        ...msg("m2", "assistant", "Creating it."),
        blocks: [
          { id: "b1", kind: "text", text: "Creating it." },
          {
            id: "b2",
            kind: "tool",
            callId: "c",
            tool: "write",
            rawTool: "write",
            status: "completed",
            input: { path: "notes.txt", content: "x" },
            output: "wrote 1 bytes to notes.txt",
          },
          { id: "b3", kind: "notice", level: "info", text: "not given to zot" },
        ],
      },
      msg("m3", "user", "Stop there"),
      msg("m4", "assistant", "Partial", { error: { name: "Aborted", message: "Stopped", aborted: true } }),
    ];
    const c = earlierConversation(messages)!;
    expect(c.included).toBe(4);
    expect(c.total).toBe(4);
    expect(c.text).toContain("All 4 earlier messages follow.");
    const body = c.text.slice(c.text.indexOf("[User]"));
    expect(body).toBe(
      [
        "[User]\nPlease create notes.txt",
        '[Assistant]\nCreating it.\n[tool write {"path":"notes.txt","content":"x"} → completed: wrote 1 bytes to notes.txt]',
        "[User]\nStop there",
        "[Assistant] (stopped by the user)\nPartial",
      ].join("\n\n"),
    );
    expect(c.text).not.toContain("not given to zot");
  });

  it("keeps the newest messages that fit, whole, and says how many are left out", () => {
    const messages = Array.from({ length: 40 }, (_, i) =>
      msg(`m${i + 1}`, i % 2 ? "assistant" : "user", `message number ${i + 1} ${"x".repeat(80)}`),
    );
    const c = earlierConversation(messages, 1000)!;
    expect(c.total).toBe(40);
    expect(c.included).toBeGreaterThan(0);
    expect(c.included).toBeLessThan(40);
    expect(c.text).toContain(
      `The ${40 - c.included} oldest messages are left out; these are the newest ${c.included}.`,
    );
    expect(c.text).toContain("message number 40 ");
    expect(c.text).not.toContain("message number 1 ");
    const body = c.text.slice(c.text.indexOf("["));
    expect(body.length).toBeLessThanOrEqual(1000);
  });

  it("clips a huge message instead of dropping everything, and has nothing to say for an empty session", () => {
    const c = earlierConversation([msg("m1", "user", "y".repeat(50_000))])!;
    expect(c.included).toBe(1);
    expect(c.text).toContain("more characters]");
    expect(earlierConversation([])).toBeUndefined();
    expect(earlierConversation([{ ...msg("m1", "assistant", ""), blocks: [] }])).toBeUndefined();
  });
});
