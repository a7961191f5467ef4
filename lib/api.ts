/**
 * Request and response schemas of the console's HTTP API (SPEC.md §5). Isomorphic: route handlers
 * validate with these, and the browser client uses the same types.
 */
import { z } from "zod";
import { BackendKind, ModelRef, Session, Message, TimelineEvent } from "./model";

export const ErrorCode = z.enum([
  "bad_request",
  "unauthorized",
  "forbidden",
  "not_found",
  "conflict",
  "payload_too_large",
  "rate_limited",
  "gone",
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

/* ----------------------------------------------------------------------------------------------
 * Share links (docs/sharing.md). Management routes are console routes; the public side lives under
 * `/share/<token>` and `/api/shares/public/<token>/…` and needs only the share token.
 * -------------------------------------------------------------------------------------------- */

export const SHARE_EXPIRIES = ["1h", "1d", "7d", "never"] as const;
export const SHARE_EXPIRY_SECONDS: Record<Exclude<(typeof SHARE_EXPIRIES)[number], "never">, number> = {
  "1h": 3600,
  "1d": 86_400,
  "7d": 7 * 86_400,
};
/** A preset, or a number of seconds (at least 1 — tests use tiny expiries; at most a year). */
export const ShareExpiry = z.union([z.enum(SHARE_EXPIRIES), z.number().int().min(1).max(365 * 86_400)]);
export type ShareExpiry = z.infer<typeof ShareExpiry>;

const ShareScopeFields = {
  backendId: z.string().min(1).max(200),
  sessionId: z.string().min(1).max(300),
  /** Share up to this message (inclusive); absent = the whole session. */
  upToMessageId: z.string().min(1).max(300).optional(),
  includeToolOutput: z.boolean().default(true),
};

export const CreateShareBody = z
  .object({ ...ShareScopeFields, live: z.boolean().default(true), expiresIn: ShareExpiry.default("1d") })
  .strict();
export type CreateShareBody = z.infer<typeof CreateShareBody>;

export const SharePreviewBody = z.object(ShareScopeFields).strict();
export type SharePreviewBody = z.infer<typeof SharePreviewBody>;

export const ShareState = z.enum(["active", "expired", "revoked"]);
export type ShareState = z.infer<typeof ShareState>;

export const ShareInfo = z.object({
  id: z.string(),
  backendId: z.string(),
  sessionId: z.string(),
  sessionTitle: z.string(),
  upToMessageId: z.string().optional(),
  live: z.boolean(),
  includeToolOutput: z.boolean(),
  createdAt: z.number(),
  /** Epoch ms; null = never expires. */
  expiresAt: z.number().nullable(),
  revokedAt: z.number().optional(),
  lastAccessAt: z.number().optional(),
  accessCount: z.number(),
  state: ShareState,
});
export type ShareInfo = z.infer<typeof ShareInfo>;

/** `POST /api/shares` answers the token once; it is never retrievable again. */
export const CreatedShare = ShareInfo.extend({ token: z.string(), path: z.string(), url: z.string() });
export type CreatedShare = z.infer<typeof CreatedShare>;

export const ListSharesQuery = z.object({
  backendId: z.string().max(200).optional(),
  sessionId: z.string().max(300).optional(),
  state: z.enum(["active", "expired", "revoked", "all"]).default("all"),
});
export type ListSharesQuery = z.infer<typeof ListSharesQuery>;

export const RedactionExample = z.object({
  kind: z.string(),
  /** The redacted text around the marker, on one line. */
  excerpt: z.string(),
  /** Where it was found, e.g. "bash output" or "assistant text". */
  where: z.string(),
});
export const RedactionSummary = z.object({
  /** Distinct secrets found. */
  total: z.number(),
  /** How many times they occur in what is shared (a key in a command and its output counts twice). */
  occurrences: z.number(),
  /** Distinct secrets by marker kind. */
  byKind: z.record(z.string(), z.number()),
  examples: z.array(RedactionExample),
});
export type RedactionSummary = z.infer<typeof RedactionSummary>;

export const SharePreview = z.object({
  messages: z.number(),
  toolCalls: z.number(),
  /** Tool calls whose output is left out (`includeToolOutput: false`). */
  hiddenToolOutputs: z.number(),
  /** The session has older messages than the console holds; they are not shared. */
  hasOlder: z.boolean(),
  redactions: RedactionSummary,
});
export type SharePreview = z.infer<typeof SharePreview>;

export const RedactionPattern = z.object({
  id: z.string(),
  label: z.string(),
  pattern: z.string(),
  regex: z.boolean(),
  /** The marker it leaves: `[REDACTED:<kind>]`. */
  kind: z.string(),
  createdAt: z.number(),
});
export type RedactionPattern = z.infer<typeof RedactionPattern>;

export const CreateRedactionPatternBody = z
  .object({
    label: nonEmpty.max(60),
    pattern: z.string().min(1).max(300),
    regex: z.boolean().default(false),
  })
  .strict();
export type CreateRedactionPatternBody = z.infer<typeof CreateRedactionPatternBody>;

export const BuiltinRedactionRule = z.object({ kind: z.string(), description: z.string() });
export const RedactionSettings = z.object({ builtin: z.array(BuiltinRedactionRule), custom: z.array(RedactionPattern) });
export type RedactionSettings = z.infer<typeof RedactionSettings>;

/** What a share shows: redacted, scoped, without backend details or interrupts. */
export const SharedSnapshot = z.object({
  share: z.object({
    live: z.boolean(),
    includeToolOutput: z.boolean(),
    upToMessageId: z.string().optional(),
    createdAt: z.number(),
    expiresAt: z.number().nullable(),
  }),
  session: Session,
  messages: z.array(Message),
  seq: z.number(),
  hasOlder: z.boolean(),
});
export type SharedSnapshot = z.infer<typeof SharedSnapshot>;

export const ShareEndReason = z.enum(["revoked", "expired", "unavailable"]);
export type ShareEndReason = z.infer<typeof ShareEndReason>;

/** Frames of `GET /api/shares/public/:token/events`: timeline events (with seq) and the end of the share. */
export const ShareStreamEvent = z.union([
  z.object({ type: z.literal("share.ended"), reason: ShareEndReason }),
  z.intersection(TimelineEvent, z.object({ seq: z.number() })),
]);
export type ShareStreamEvent = z.infer<typeof ShareStreamEvent>;
