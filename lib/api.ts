/**
 * Request and response schemas of the console's HTTP API (SPEC.md §5). Isomorphic: route handlers
 * validate with these, and the browser client uses the same types.
 */
import { z } from "zod";
import { BackendKind, ModelRef, Session, Message } from "./model";

export const ErrorCode = z.enum([
  "bad_request",
  "unauthorized",
  "forbidden",
  "not_found",
  "conflict",
  "payload_too_large",
  "rate_limited",
  "upstream_failed",
  "backend_down",
  "internal",
]);
export type ErrorCode = z.infer<typeof ErrorCode>;

export const ErrorBody = z.object({
  error: z.object({ code: ErrorCode, message: z.string(), details: z.unknown().optional() }),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

const nonEmpty = z.string().trim().min(1);

export const ListSessionsQuery = z.object({
  search: z.string().trim().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
  cursor: z.string().max(200).optional(),
});
export type ListSessionsQuery = z.infer<typeof ListSessionsQuery>;

export const SessionPage = z.object({ items: z.array(Session), nextCursor: z.string().optional() });
export type SessionPage = z.infer<typeof SessionPage>;

export const CreateSessionBody = z
  .object({
    title: z.string().trim().max(300).optional(),
    directory: z.string().max(4096).optional(),
    model: ModelRef.optional(),
  })
  .strict();
export type CreateSessionBody = z.infer<typeof CreateSessionBody>;

export const PatchSessionBody = z.object({ title: nonEmpty.max(300) }).strict();
export type PatchSessionBody = z.infer<typeof PatchSessionBody>;

export const MessagesQuery = z.object({
  before: z.string().max(500).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
});
export type MessagesQuery = z.infer<typeof MessagesQuery>;

export const MessagePage = z.object({ items: z.array(Message), nextCursor: z.string().optional() });
export type MessagePage = z.infer<typeof MessagePage>;

export const PromptPart = z.discriminatedUnion("type", [
  z.object({ type: z.literal("text"), text: z.string().min(1).max(200_000) }),
  z.object({
    type: z.literal("file"),
    mime: z.string().min(1).max(200),
    url: z.string().min(1).max(10_000_000),
    filename: z.string().max(500).optional(),
  }),
]);
export type PromptPart = z.infer<typeof PromptPart>;

export const PromptBody = z
  .object({
    parts: z.array(PromptPart).min(1).max(50),
    model: ModelRef.optional(),
    agent: z.string().max(100).optional(),
  })
  .strict();
export type PromptBody = z.infer<typeof PromptBody>;

export const EventsQuery = z.object({ after: z.coerce.number().int().nonnegative().optional() });

export const OpencodeBackendConfig = z
  .object({
    baseUrl: z.url().optional(),
    username: z.string().max(200).optional(),
    password: z.string().max(1000).optional(),
    directory: z.string().max(4096).optional(),
  })
  .strict();
export const StdioBackendConfig = z
  .object({
    command: z.array(z.string().min(1)).min(1),
    env: z.record(z.string(), z.string()).optional(),
    cwd: z.string().optional(),
  })
  .strict();
export const A2aBackendConfig = z.object({ url: z.url(), token: z.string().optional() }).strict();

export const BackendDefinition = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("opencode"), label: nonEmpty.max(100), config: OpencodeBackendConfig.default({}) }),
  z.object({ kind: z.enum(["acp", "copilot", "opal", "zot"]), label: nonEmpty.max(100), config: StdioBackendConfig }),
  z.object({ kind: z.literal("a2a"), label: nonEmpty.max(100), config: A2aBackendConfig }),
]);
export type BackendDefinition = z.infer<typeof BackendDefinition>;
export { BackendKind };

export const Health = z.object({ ok: z.boolean(), version: z.string() });

/** `POST …/interrupts/:i` — exactly one of the four shapes (SPEC.md §5). */
export const InterruptAnswer = z.union([
  z.object({ decision: z.enum(["allow_once", "allow_always", "reject"]), message: z.string().trim().max(10_000).optional() }).strict(),
  z.object({ answers: z.array(z.array(z.string().max(10_000)).max(50)).min(1).max(20) }).strict(),
  z.object({ dismiss: z.literal(true) }).strict(),
  z.object({ text: z.string().max(100_000) }).strict(),
]);
export type InterruptAnswer = z.infer<typeof InterruptAnswer>;

/** `POST …/sessions/:s/settings` — change one session option (see `SessionOption`). */
export const SessionSettingBody = z
  .object({ id: z.string().min(1).max(200), value: z.union([z.string().max(1000), z.boolean()]) })
  .strict();
export type SessionSettingBody = z.infer<typeof SessionSettingBody>;

/** `GET /api/backends/presets` — ready-made ACP agents, and whether their binary is installed. */
export const BackendPreset = z.object({
  id: z.string(),
  kind: BackendKind,
  label: z.string(),
  description: z.string(),
  command: z.array(z.string()),
  available: z.boolean(),
  /** Where the binary was found (when available). */
  path: z.string().optional(),
});
export type BackendPreset = z.infer<typeof BackendPreset>;

/** `GET /api/backends/:b/logs` — the stderr tail of a stdio agent. */
export const BackendLogs = z.object({ lines: z.array(z.string()) });
export type BackendLogs = z.infer<typeof BackendLogs>;
