/**
 * The `/api/event` frames as the mapping (./api-events.ts) reads them, checked with zod at the
 * boundary: the envelope, each understood type's data, and which types are skipped quietly, for
 * both generations (1.18's and upstream main's, types.gen.ts at ac9ce832).
 */
import { z } from "zod";

/** The envelope of every `/api/event` frame. */
export const ApiFrame = z.object({
  id: z.string().optional(),
  type: z.string(),
  /** Upstream main's frames carry their time here (1.18's, a `timestamp` in the data). */
  created: z.number().optional(),
  data: z.unknown().optional(),
  durable: z.object({ aggregateID: z.string(), seq: z.number() }).loose().optional(),
  location: z.object({ directory: z.string().optional() }).loose().optional(),
});
export type ApiFrame = z.infer<typeof ApiFrame>;

const sid = z.string().regex(/^ses/);
const mid = z.string().regex(/^msg_/);
const Step = z.object({ sessionID: sid, assistantMessageID: mid, timestamp: z.number() }).loose();
const ErrorInfo = z.object({ message: z.string() }).loose();
const Tokens = z.object({ input: z.number(), output: z.number() }).loose();

/** The data of each frame type the adapter understands; anything else is skipped. */
export const API_EVENTS = {
  "session.created": z.object({ sessionID: sid, info: z.unknown() }).loose(),
  "session.updated": z.object({ sessionID: sid, info: z.unknown() }).loose(),
  "session.deleted": z.object({ sessionID: sid }).loose(),
  "session.next.prompted": z
    .object({
      sessionID: sid,
      messageID: mid,
      timestamp: z.number(),
      prompt: z.object({ text: z.string(), files: z.array(z.unknown()).optional() }).loose(),
    })
    .loose(),
  "session.next.prompt.admitted": z.object({ sessionID: sid, messageID: mid }).loose(),
  "session.next.synthetic": z.object({ sessionID: sid }).loose(),
  "session.next.step.started": Step.extend({
    agent: z.string().optional(),
    model: z.object({ id: z.string(), providerID: z.string() }).loose().optional(),
  }),
  "session.next.step.ended": Step.extend({
    finish: z.string(),
    cost: z.number().optional(),
    tokens: Tokens.optional(),
  }),
  "session.next.step.failed": Step.extend({ error: ErrorInfo }),
  "session.next.text.started": Step.extend({ textID: z.string() }),
  "session.next.text.delta": Step.extend({ textID: z.string(), delta: z.string() }),
  "session.next.text.ended": Step.extend({ textID: z.string(), text: z.string() }),
  "session.next.reasoning.started": Step.extend({ reasoningID: z.string() }),
  "session.next.reasoning.delta": Step.extend({ reasoningID: z.string(), delta: z.string() }),
  "session.next.reasoning.ended": Step.extend({ reasoningID: z.string(), text: z.string() }),
  "session.next.tool.input.started": Step.extend({ callID: z.string(), name: z.string() }),
  "session.next.tool.input.delta": Step.extend({ callID: z.string() }),
  "session.next.tool.input.ended": Step.extend({ callID: z.string() }),
  "session.next.tool.called": Step.extend({
    callID: z.string(),
    tool: z.string(),
    input: z.record(z.string(), z.unknown()),
  }),
  "session.next.tool.progress": Step.extend({
    callID: z.string(),
    structured: z.record(z.string(), z.unknown()).optional(),
    content: z.array(z.unknown()).optional(),
  }),
  "session.next.tool.success": Step.extend({
    callID: z.string(),
    structured: z.record(z.string(), z.unknown()).optional(),
    content: z.array(z.unknown()).optional(),
  }),
  "session.next.tool.failed": Step.extend({ callID: z.string(), error: ErrorInfo }),
  "session.next.retried": z.object({ sessionID: sid, attempt: z.number(), error: z.unknown() }).loose(),
  "session.next.compaction.started": z.object({ sessionID: sid, messageID: mid, timestamp: z.number() }).loose(),
  "session.next.compaction.ended": z
    .object({ sessionID: sid, messageID: mid, timestamp: z.number(), text: z.string() })
    .loose(),
  "session.next.revert.staged": z
    .object({ sessionID: sid, revert: z.object({ messageID: mid, diff: z.string().optional() }).loose() })
    .loose(),
  "session.next.revert.cleared": z.object({ sessionID: sid }).loose(),
  "session.next.revert.committed": z.object({ sessionID: sid, messageID: mid }).loose(),
  "permission.v2.asked": z
    .object({ id: z.string(), sessionID: sid, action: z.string(), resources: z.array(z.string()) })
    .loose(),
  "permission.v2.replied": z.object({ sessionID: sid, requestID: z.string(), reply: z.string() }).loose(),
  "question.v2.asked": z.object({ id: z.string(), sessionID: sid, questions: z.array(z.unknown()) }).loose(),
  "question.v2.replied": z.object({ sessionID: sid, requestID: z.string() }).loose(),
  "question.v2.rejected": z.object({ sessionID: sid, requestID: z.string() }).loose(),
  "todo.updated": z
    .object({
      sessionID: sid,
      todos: z.array(z.object({ content: z.string(), status: z.string(), priority: z.string().optional() }).loose()),
    })
    .loose(),
} as const;

/** Frames that carry nothing for the timeline: skipped quietly (everything else unknown is logged). */
export const QUIET =
  /^(server\.|plugin\.|catalog\.|integration\.|reference\.|models-dev\.|file\.|lsp\.|pty\.|project\.|vcs\.|workspace\.|worktree\.|installation\.|mcp\.|tui\.|command\.|global\.|message\.|session\.(status|idle|diff|error|compacted)|permission\.(asked|replied)|question\.(asked|replied|rejected)|session\.next\.(agent|model)\.switched|session\.next\.(moved|context\.updated|shell\.|compaction\.delta))/;
/** The same on upstream main's generation (types.gen.ts at ac9ce832: its `V2Event` union). */
export const QUIET_MAIN =
  /^(shell\.|filesystem\.|config\.|skill\.|agent\.updated|session\.(agent|model)\.selected|session\.(moved|renamed|forked|synthetic|instructions\.updated|context\.updated|skill\.activated|shell\.|compaction\.delta))/;

/**
 * Upstream main's names for the frames that only moved: the 1.18 type they are read as. Their data
 * is 1.18's less the `timestamp`, which the envelope's `created` gives (types.gen.ts at ac9ce832).
 */
export const MAIN_RENAMED: Record<string, keyof typeof API_EVENTS> = Object.fromEntries(
  [
    "step.started",
    "step.ended",
    "step.failed",
    "text.started",
    "text.delta",
    "text.ended",
    "reasoning.started",
    "reasoning.delta",
    "reasoning.ended",
    "tool.input.started",
    "tool.input.delta",
    "tool.input.ended",
    "tool.called",
    "tool.progress",
    "tool.success",
    "tool.failed",
    "retried",
    "revert.staged",
    "revert.cleared",
    "revert.committed",
  ].map((t) => [`session.${t}`, `session.next.${t}` as keyof typeof API_EVENTS]),
);

/** Upstream main's own frames (types.gen.ts at ac9ce832). */
export const MAIN_EVENTS = {
  "session.prompt.admitted": z
    .object({
      sessionID: sid,
      inputID: mid,
      prompt: z.object({ text: z.string(), files: z.array(z.unknown()).optional() }).loose(),
    })
    .loose(),
  "session.prompt.promoted": z.object({ sessionID: sid, inputID: mid }).loose(),
  "session.execution.settled": z
    .object({
      sessionID: sid,
      outcome: z.string(),
      error: z.object({ message: z.string() }).loose().optional(),
    })
    .loose(),
  "session.compaction.started": z.object({ sessionID: sid }).loose(),
  "session.compaction.ended": z.object({ sessionID: sid, text: z.string() }).loose(),
  "form.created": z.object({ form: z.unknown() }).loose(),
  "form.replied": z.object({ id: z.string(), sessionID: z.string() }).loose(),
  "form.cancelled": z.object({ id: z.string(), sessionID: z.string() }).loose(),
} as const;
