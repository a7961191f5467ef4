/** The gallery's sample texts: a Markdown answer, a source file, tool outputs. */

export const T0 = Date.UTC(2025, 5, 1, 9, 30);
export const ROOT = "/home/dev/projects/switchboard";

export const MARKDOWN = `I found the cause. The reconnect loop in \`useEventStream\` never resets its backoff after a successful connection, so after a few flaky minutes it waits **30 s** before every retry.

## What changed

1. Reset the backoff once the first event arrives (not when the socket opens — a proxy can accept and then drop it).
2. Cap the delay at 10 s and add jitter so many tabs don't reconnect in lockstep.
3. Surface the state in the header: *connecting*, *live*, or *offline*.

\`\`\`ts
export function nextDelay(attempt: number, base = 500, cap = 10_000): number {
  const exp = Math.min(cap, base * 2 ** attempt);
  // Full jitter: a uniform pick in [0, exp).
  return Math.floor(Math.random() * exp);
}
\`\`\`

| Scenario | Before | After |
| --- | ---: | ---: |
| First retry | 500 ms | ≤ 500 ms |
| After 6 failures | 30 s | ≤ 10 s |
| After recovery | 30 s | ≤ 500 ms |

> The server already sends \`retry: 2000\`, but the browser's native EventSource logic is bypassed because we use \`fetch\` streaming.

- [x] Unit tests for \`nextDelay\`
- [x] Manual check with the network throttled
- [ ] E2E test for the header indicator

See the [EventSource spec](https://html.spec.whatwg.org/multipage/server-sent-events.html) for the \`retry\` field, or mail [the team](mailto:team@example.com).

\`\`\`bash
npm run test:unit -- reconnect
\`\`\``;

export const TS_FILE = `import { z } from "zod";
import type { Block } from "./model";

/** Applies one delta to a block's text, returning a new block. */
export function applyDelta(block: Block, field: "text" | "output", delta: string): Block {
  if (block.kind === "text" || block.kind === "reasoning") {
    if (field !== "text") return block;
    return { ...block, text: block.text + delta };
  }
  if (block.kind === "tool" && field === "output") {
    return { ...block, output: (block.output ?? "") + delta };
  }
  return block;
}

export const Cursor = z.object({ seq: z.number().int().nonnegative() });
export type Cursor = z.infer<typeof Cursor>;
`;

export const READ_OUTPUT = `<path>${ROOT}/lib/timeline/apply.ts</path>
<type>file</type>
<content>
${TS_FILE.split("\n")
  .slice(0, -1)
  .map((l, i) => `${i + 1}: ${l}`)
  .join("\n")}

(End of file - total ${TS_FILE.split("\n").length - 1} lines)
</content>`;

export const OLD_EDIT = `  const delay = Math.min(30_000, 500 * 2 ** attempt);
  attempt++;
  setTimeout(connect, delay);`;
export const NEW_EDIT = `  const delay = nextDelay(attempt);
  attempt++;
  setStatus("connecting");
  setTimeout(connect, delay);`;

export const WRITE_CONTENT = `# Reconnect behaviour

The event stream reconnects with capped, jittered exponential backoff:

- base delay 500 ms, cap 10 s
- the backoff resets after the first event arrives
`;

export const GREP_OUTPUT = `Found 5 matches
${ROOT}/components/session/timeline.tsx:
  Line 42: const stream = useEventStream(sessionId, { onEvent });
  Line 88:   // useEventStream keeps the cursor across reconnects

${ROOT}/lib/hooks/use-event-stream.ts:
  Line 1: export function useEventStream(sessionId: string, opts: StreamOptions) {
  Line 57:     const delay = Math.min(30_000, 500 * 2 ** attempt);

${ROOT}/e2e/reconnect.spec.ts:
  Line 12: test("useEventStream recovers after the hub restarts", async ({ page }) => {`;

export const GLOB_OUTPUT = [
  "components/timeline/markdown.tsx",
  "components/timeline/tool-card.tsx",
  "components/timeline/block-view.tsx",
  "components/timeline/message-view.tsx",
  "components/timeline/reasoning-view.tsx",
]
  .map((p) => `${ROOT}/${p}`)
  .join("\n");

export const LIST_OUTPUT = `${ROOT}/lib/
  timeline/
    apply.ts
    diff.ts
    reducer.ts
  testing/
    server-only-stub.ts
  api.ts
  model.ts
`;

export const BASH_OUTPUT = `> switchboard@0.1.0 test:unit
> vitest run reconnect

 RUN  v4.0.3 /home/dev/projects/switchboard

 ✓ lib/hooks/next-delay.test.ts (4 tests) 3ms
 ✓ lib/hooks/use-event-stream.test.ts (6 tests) 41ms

 Test Files  2 passed (2)
      Tests  10 passed (10)
   Start at  09:31:02
   Duration  612ms (transform 88ms, setup 0ms, collect 140ms, tests 44ms)
`;

export const BASH_FAIL = `\u001b[31mError:\u001b[0m Cannot find module '@/lib/hooks/next-delay'
Require stack:
- /home/dev/projects/switchboard/lib/hooks/use-event-stream.ts
    at Module._resolveFilename (node:internal/modules/cjs/loader:1145:15)
    at Module._load (node:internal/modules/cjs/loader:986:27)
npm ERR! Test failed.  See above for more details.`;

export const RUNNING_OUTPUT = Array.from(
  { length: 18 },
  (_, i) => `[build] compiled chunk ${String(i + 1).padStart(2, "0")}/40  app/(session)/page-${i}.js`,
).join("\n");
