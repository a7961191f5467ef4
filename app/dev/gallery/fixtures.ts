/** The gallery's fixtures: a conversation, every tool state, notices, errors. */
import type { Block, Message, ToolBlock } from "@/lib/model";
import {
  T0,
  ROOT,
  MARKDOWN,
  READ_OUTPUT,
  OLD_EDIT,
  NEW_EDIT,
  WRITE_CONTENT,
  GREP_OUTPUT,
  GLOB_OUTPUT,
  LIST_OUTPUT,
  BASH_OUTPUT,
  BASH_FAIL,
  RUNNING_OUTPUT,
} from "./fixture-texts";

let seq = 0;
const id = (p: string) => `${p}_${++seq}`;

function tool(partial: Partial<ToolBlock> & Pick<ToolBlock, "tool" | "status" | "input">): ToolBlock {
  return {
    id: id("prt"),
    kind: "tool",
    callId: id("call"),
    rawTool: partial.tool === "todo" ? "todowrite" : partial.tool,
    startedAt: T0,
    endedAt:
      partial.status === "running" || partial.status === "pending" || partial.status === "awaiting-approval"
        ? undefined
        : T0 + 840,
    ...partial,
  };
}

export const conversation: Message[] = [
  {
    id: "m1",
    sessionId: "s1",
    role: "user",
    createdAt: T0,
    blocks: [
      {
        id: "u1",
        kind: "text",
        text: "The live timeline stops updating after my laptop wakes from sleep. Can you find out why and fix it?\n\nIt comes back if I reload.",
      },
      {
        id: "u2",
        kind: "file",
        name: "screenshot.png",
        mime: "image/png",
        url: "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAYAAABytg0kAAAAFklEQVR4nGNkYPj/n4GBgYGJgQEKAEcSAgeJ0pBxAAAAAElFTkSuQmCC",
      },
    ],
  },
  {
    id: "m2",
    sessionId: "s1",
    role: "assistant",
    createdAt: T0 + 1000,
    completedAt: T0 + 48_200,
    model: { provider: "anthropic", id: "claude-sonnet-4-5" },
    agent: "build",
    usage: {
      inputTokens: 18_342,
      outputTokens: 1_204,
      cacheReadTokens: 12_800,
      cacheWriteTokens: 2_100,
      costUsd: 0.0734,
    },
    blocks: [
      {
        id: "r1",
        kind: "reasoning",
        text: "The user says the stream stops after sleep. Likely the fetch-based SSE reader doesn't notice the dead connection, or the backoff grows without reset.\n\nI should look at `useEventStream` first, then grep for where the delay is computed.",
        startedAt: T0 + 1000,
        endedAt: T0 + 4200,
      },
      tool({
        tool: "grep",
        status: "completed",
        input: { pattern: "useEventStream", path: ROOT, include: "*.{ts,tsx}" },
        output: GREP_OUTPUT,
        title: "useEventStream",
      }),
      tool({
        tool: "read",
        status: "completed",
        input: { filePath: `${ROOT}/lib/timeline/apply.ts` },
        output: READ_OUTPUT,
        title: "lib/timeline/apply.ts",
      }),
      tool({
        tool: "glob",
        status: "completed",
        input: { pattern: "components/timeline/*.tsx", path: ROOT },
        output: GLOB_OUTPUT,
      }),
      tool({ tool: "list", status: "completed", input: { path: `${ROOT}/lib` }, output: LIST_OUTPUT }),
      tool({
        tool: "edit",
        status: "completed",
        input: { filePath: `${ROOT}/lib/hooks/use-event-stream.ts`, oldString: OLD_EDIT, newString: NEW_EDIT },
        output: "Edit applied successfully.",
        title: "lib/hooks/use-event-stream.ts",
      }),
      tool({
        tool: "write",
        status: "completed",
        input: { filePath: `${ROOT}/docs/reconnect.md`, content: WRITE_CONTENT },
        output: "Wrote file successfully.",
        title: "docs/reconnect.md",
      }),
      tool({
        tool: "bash",
        status: "completed",
        input: { command: "npm run test:unit -- reconnect", description: "Run the reconnect unit tests" },
        output: BASH_OUTPUT,
        exitCode: 0,
        endedAt: T0 + 3_412,
      }),
      tool({
        tool: "todo",
        status: "completed",
        input: {
          todos: [
            { content: "Find where the reconnect delay is computed", status: "completed", priority: "high" },
            { content: "Reset backoff after the first event", status: "completed", priority: "high" },
            { content: "Show connection state in the session header", status: "in_progress", priority: "medium" },
            { content: "Add an E2E test for sleep/wake", status: "pending", priority: "medium" },
            { content: "Switch to native EventSource", status: "cancelled", priority: "low" },
          ],
        },
        title: "3 todos",
      }),
      { id: "t1", kind: "text", text: MARKDOWN },
    ],
  },
];

export const toolStates: ToolBlock[] = [
  tool({
    tool: "bash",
    status: "pending",
    input: { command: "git status --short", description: "Check the working tree" },
  }),
  tool({
    tool: "bash",
    status: "running",
    input: { command: "npm run build", description: "Production build" },
    output: RUNNING_OUTPUT,
    startedAt: Date.now() - 12_400,
  }),
  tool({
    tool: "bash",
    status: "awaiting-approval",
    input: { command: "rm -rf node_modules/.cache && npm ci", description: "Clean install" },
  }),
  tool({
    tool: "bash",
    status: "completed",
    input: { command: "npm test -- --run reconnect", description: "Run tests" },
    output: BASH_FAIL,
    exitCode: 1,
    endedAt: T0 + 2_130,
  }),
  tool({
    tool: "bash",
    status: "denied",
    input: { command: "git push --force origin main", description: "Force push" },
    error: "The user rejected permission to use this specific tool call.",
  }),
  tool({
    tool: "bash",
    status: "cancelled",
    input: { command: "npm run e2e", description: "End-to-end tests" },
    output: "Running 24 tests using 4 workers\n  ✓ 1 session › opens (1.2s)\n",
    error: "Tool execution aborted",
  }),
  tool({
    tool: "read",
    status: "error",
    input: { filePath: `${ROOT}/lib/hooks/use-reconnect.ts` },
    error: `File not found: ${ROOT}/lib/hooks/use-reconnect.ts\n\nDid you mean one of these?\n${ROOT}/lib/hooks/use-event-stream.ts`,
  }),
  tool({
    tool: "read",
    status: "running",
    input: { filePath: `${ROOT}/package.json`, offset: 1, limit: 40 },
    startedAt: Date.now() - 1_200,
  }),
  tool({
    tool: "task",
    status: "completed",
    input: {
      description: "Audit other SSE consumers",
      prompt:
        "Find every place in the codebase that consumes the server-sent event stream and check whether it handles reconnects and cursor resumption. Report file paths and a one-line verdict for each.",
      subagent_type: "explore",
    },
    output:
      '<task id="ses_abc" state="completed">\n<task_result>\nFound **3** consumers:\n\n- `components/session/timeline.tsx` — resumes from the cursor ✓\n- `components/shell/sidebar.tsx` — reconnects, but **drops** the cursor ✗\n- `lib/notifications.ts` — no reconnect at all ✗\n</task_result>\n</task>',
    childSessionId: "ses_dfec987c9ffe0nD5nfxz4wq3Fj",
    endedAt: T0 + 21_800,
  }),
  tool({
    tool: "task",
    status: "running",
    input: {
      description: "Write the E2E test",
      prompt: "Add a Playwright test that simulates sleep/wake.",
      subagent_type: "general",
    },
    startedAt: Date.now() - 4_000,
  }),
  tool({
    tool: "question",
    status: "completed",
    input: {
      questions: [
        {
          header: "Indicator",
          question: "Where should the connection state appear?",
          options: [
            { label: "Session header", description: "Next to the title" },
            { label: "Status bar", description: "Bottom of the window" },
          ],
        },
      ],
    },
    output:
      'User has answered your questions: "Where should the connection state appear?"="Session header". You can now continue with the user\'s answers in mind.',
  }),
  tool({
    tool: "webfetch",
    status: "completed",
    input: { url: "https://developer.mozilla.org/en-US/docs/Web/API/EventSource", format: "markdown" },
    output:
      "# EventSource\n\nThe EventSource interface is web content's interface to server-sent events.\n\n<script>alert('not executed')</script>",
  }),
  tool({
    tool: "patch",
    status: "completed",
    input: {
      patchText:
        '*** Begin Patch\n*** Update File: lib/hooks/next-delay.ts\n@@ export function nextDelay\n-  return Math.min(cap, base * 2 ** attempt);\n+  const exp = Math.min(cap, base * 2 ** attempt);\n+  return Math.floor(Math.random() * exp);\n*** Delete File: lib/hooks/backoff.ts\n*** Add File: lib/hooks/next-delay.test.ts\n+import { expect, test } from "vitest";\n+import { nextDelay } from "./next-delay";\n+\n+test("caps the delay", () => expect(nextDelay(20)).toBeLessThan(10_000));\n*** End Patch',
    },
    output: "Success. Updated the following files:\nM lib/hooks/next-delay.ts\nA lib/hooks/next-delay.test.ts",
  }),
  tool({
    tool: "edit",
    status: "completed",
    input: { filePath: `${ROOT}/lib/hooks/use-event-stream.ts` },
    diff: [
      {
        path: "lib/hooks/use-event-stream.ts",
        status: "modified",
        additions: 2,
        deletions: 1,
        patch:
          '--- a/lib/hooks/use-event-stream.ts\n+++ b/lib/hooks/use-event-stream.ts\n@@ -54,7 +54,8 @@ export function useEventStream(sessionId: string, opts: StreamOptions) {\n     if (cancelled) return;\n     setStatus("offline");\n-    const delay = Math.min(30_000, 500 * 2 ** attempt);\n+    const delay = nextDelay(attempt);\n+    setStatus("connecting");\n     attempt++;\n     timer = setTimeout(connect, delay);\n   };\n',
      },
    ],
  }),
  tool({
    tool: "other",
    rawTool: "github_create_issue",
    status: "completed",
    input: { owner: "acme", repo: "switchboard", title: "Reconnect E2E is flaky on CI", labels: ["test", "flaky"] },
    output: '{"number": 412, "url": "https://github.com/acme/switchboard/issues/412", "state": "open"}',
    title: "Reconnect E2E is flaky on CI",
  }),
];

export const notices: Block[] = [
  { id: "n1", kind: "notice", level: "info", text: "Conversation compacted" },
  { id: "n2", kind: "notice", level: "warn", text: "Retrying: 529 Overloaded — next attempt in 8s (attempt 2 of 5)" },
  { id: "n3", kind: "notice", level: "error", text: "The backend closed the stream unexpectedly." },
  {
    id: "f1",
    kind: "file",
    name: "build-log.txt",
    mime: "text/plain",
    url: "https://example.com/artifacts/build-log.txt",
  },
  { id: "f2", kind: "file", name: "evil.html", mime: "text/html", url: "javascript:alert(1)" },
];

const XSS = `Raw HTML stays text: <img src=x onerror=alert(1)> and <script>alert("xss")</script>.

Links: [click me](javascript:alert(1)) · [relative](/etc/passwd) · [data](data:text/html,<b>x</b>) · [safe](https://example.com/docs).

Image (never loaded): ![tracking pixel](https://evil.example/pixel.png?u=me)

<div onclick="alert(1)">A raw block of HTML</div>`;

export const errorMessages: Message[] = [
  {
    id: "e1",
    sessionId: "s1",
    role: "assistant",
    createdAt: T0,
    completedAt: T0 + 2_300,
    model: { provider: "openai", id: "gpt-5" },
    blocks: [{ id: "e1t", kind: "text", text: "Let me check the hub logs." }],
    error: {
      name: "APIError",
      message: "429 Too Many Requests: rate limit reached for requests per minute. Try again in 20s.",
    },
  },
  {
    id: "e2",
    sessionId: "s1",
    role: "assistant",
    createdAt: T0,
    completedAt: T0 + 5_100,
    model: { provider: "anthropic", id: "claude-sonnet-4-5" },
    blocks: [
      { id: "e2t", kind: "text", text: "I'll start the dev server and" },
      tool({ tool: "bash", status: "cancelled", input: { command: "npm run dev" }, error: "Tool execution aborted" }),
    ],
    error: { name: "MessageAbortedError", message: "The operation was aborted.", aborted: true },
  },
  {
    id: "e3",
    sessionId: "s1",
    role: "assistant",
    createdAt: T0,
    model: { provider: "anthropic", id: "claude-sonnet-4-5" },
    blocks: [{ id: "e3r", kind: "reasoning", text: "Looking at the reducer to see whether deltas", startedAt: T0 }],
  },
  {
    id: "x1",
    sessionId: "s1",
    role: "assistant",
    createdAt: T0,
    completedAt: T0 + 900,
    model: { provider: "fake", id: "fake-model" },
    blocks: [
      { id: "x1t", kind: "text", text: XSS },
      tool({
        tool: "bash",
        status: "completed",
        input: { command: "cat page.html", description: "<img src=x onerror=alert(2)>" },
        output: '<html><body onload="alert(3)"><script>alert(4)</script></body></html>',
        exitCode: 0,
      }),
      {
        id: "x1f",
        kind: "file",
        name: "<img src=x onerror=alert(5)>.svg",
        mime: "image/svg+xml",
        url: "data:image/svg+xml,<svg onload=alert(6)>",
      },
    ],
  },
];

export const userLong: Message = {
  id: "ul",
  sessionId: "s1",
  role: "user",
  createdAt: T0,
  blocks: [
    {
      id: "ult",
      kind: "text",
      text: "Small follow-up: please keep the public API of `useEventStream` unchanged,\nand don't touch   the   spacing   in   this   line.\n\n    indented text stays as typed\n<b>not bold</b>",
    },
  ],
};
