/**
 * Request and response schemas of the console's HTTP API (docs/api.md). Isomorphic: route handlers
 * validate with these, and the browser client uses the same types.
 */
import { z } from "zod";
import {
  AgentCardSummary,
  BackendKind,
  FileDiff,
  ModelRef,
  PersonRef,
  Session,
  Message,
  TimelineEvent,
  Todo,
  type Backend,
  type Interrupt,
} from "./model";

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

/** Routes that take no body still validate it: nothing, or `{}`; any key is refused (400). */
export const EmptyBody = z.object({}).strict();
/**
 * Routes that take no query parameters refuse any (400). Every query schema is strict: a parameter
 * a route does not know is refused, never ignored (the browser sends none it does not declare).
 */
export const EmptyQuery = z.object({}).strict();

/** `POST /api/auth/login` */
export const LoginBody = z.object({ token: z.string().min(1).max(1000) }).strict();
export type LoginBody = z.infer<typeof LoginBody>;

export const ListSessionsQuery = z
  .object({
    search: z.string().trim().max(200).optional(),
    limit: z.coerce.number().int().min(1).max(500).default(100),
    cursor: z.string().max(200).optional(),
  })
  .strict();
export type ListSessionsQuery = z.infer<typeof ListSessionsQuery>;

/** `GET /api/search` (docs/search.md): any text is a valid query; it is never FTS5 syntax. */
export const SearchQuery = z
  .object({
    q: z.string().max(10_000),
    backendId: z.string().max(200).optional(),
    limit: z.coerce.number().int().min(1).max(100).default(20),
    cursor: z
      .string()
      .regex(/^\d{1,5}$/, "cursor must be one that a previous page returned")
      .optional(),
  })
  .strict();
export type SearchQuery = z.infer<typeof SearchQuery>;

export const SearchHit = z.object({
  backendId: z.string(),
  sessionId: z.string(),
  sessionTitle: z.string(),
  messageId: z.string(),
  role: z.enum(["user", "assistant", "system"]),
  /** Plain text around the words found; `matches` are their [start, end) offsets in it. */
  snippet: z.string(),
  matches: z.array(z.tuple([z.number(), z.number()])),
  createdAt: z.number(),
});
export type SearchHit = z.infer<typeof SearchHit>;
export const SearchPage = z.object({ items: z.array(SearchHit), nextCursor: z.string().optional() });
export type SearchPage = z.infer<typeof SearchPage>;

/** `GET /api/search/status`: the index per backend, and its setting. */
export const SearchStatus = z.object({
  toolOutputs: z.boolean(),
  backends: z.array(
    z.object({
      backendId: z.string(),
      state: z.enum(["indexing", "idle", "error"]),
      sessions: z.number(),
      messages: z.number(),
      seen: z.number(),
      indexed: z.number(),
      lastPassAt: z.number().optional(),
      error: z.string().optional(),
    }),
  ),
});
export type SearchStatus = z.infer<typeof SearchStatus>;

/** `PUT /api/search/settings` */
export const SearchSettingsBody = z.object({ toolOutputs: z.boolean() }).strict();
export type SearchSettingsBody = z.infer<typeof SearchSettingsBody>;

export const SessionPage = z.object({ items: z.array(Session), nextCursor: z.string().optional() });
export type SessionPage = z.infer<typeof SessionPage>;

export const CreateSessionBody = z
  .object({
    title: z.string().trim().max(300).optional(),
    directory: z.string().max(4096).optional(),
    model: ModelRef.optional(),
    /** Open the session in a git worktree of its own, on a new branch (docs/workspace.md). */
    worktree: z.boolean().optional(),
    /** The worktree's branch; `switchboard/<slug>` when absent. */
    branch: z.string().trim().min(1).max(200).optional(),
  })
  .strict()
  .refine((b) => b.branch === undefined || b.worktree === true, {
    message: "branch is for a session in its own worktree (worktree: true)",
    path: ["branch"],
  });
export type CreateSessionBody = z.infer<typeof CreateSessionBody>;

/** `DELETE …/sessions/:id`: what becomes of the session's worktree, when it has one. */
export const DeleteSessionQuery = z
  .object({
    /** `remove`: remove the worktree folder (refused while it holds uncommitted changes). */
    worktree: z.enum(["remove", "keep"]).default("keep"),
    /** With `worktree=remove`: also delete its branch. The branch is kept unless this says so. */
    branch: z.enum(["keep", "delete"]).default("keep"),
  })
  .strict();
export type DeleteSessionQuery = z.infer<typeof DeleteSessionQuery>;

export const PatchSessionBody = z.object({ title: nonEmpty.max(300) }).strict();
export type PatchSessionBody = z.infer<typeof PatchSessionBody>;

export const MessagesQuery = z
  .object({
    before: z.string().max(500).optional(),
    limit: z.coerce.number().int().min(1).max(500).default(50),
  })
  .strict();
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

export const EventsQuery = z.object({ after: z.coerce.number().int().nonnegative().optional() }).strict();

/**
 * Names of the console's environment variables an agent gets on top of the basics (docs/security.md,
 * "What an agent's environment holds"): provider keys the user chose to pass (`OPENAI_API_KEY`).
 * Never the console's own (`SWITCHBOARD_*`) nor the credentials of `OPENCODE_BASE_URL`'s server.
 */
export const PassEnv = z
  .array(
    z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, "An environment variable name (letters, digits, _)")
      .refine(
        (n) => !/^SWITCHBOARD_/i.test(n) && !/^OPENCODE_SERVER_(?:PASSWORD|USERNAME)$/i.test(n),
        "The console's own variables are never passed to an agent",
      ),
  )
  .max(100);
export type PassEnv = z.infer<typeof PassEnv>;

export const OpencodeBackendConfig = z
  .object({
    baseUrl: z.url().optional(),
    username: z.string().max(200).optional(),
    password: z.string().max(1000).optional(),
    directory: z.string().max(4096).optional(),
    /** For an OpenCode the console runs (no `baseUrl`): variables passed from the console's environment. */
    passEnv: PassEnv.optional(),
    /** Which OpenCode server contract to speak: `auto` (default) detects `/api`, else V1; `v1` or `api` forces one. */
    contract: z.enum(["auto", "v1", "api"]).optional(),
  })
  .strict();
export const StdioBackendConfig = z
  .object({
    command: z.array(z.string().min(1)).min(1),
    env: z.record(z.string(), z.string()).optional(),
    /** Variables passed from the console's environment (by name; the values stay on the server). */
    passEnv: PassEnv.optional(),
    /** From `POST /api/backends`: realpath'd and kept inside the workspace roots (403), like a session directory. From `SWITCHBOARD_BACKENDS`: as given. */
    cwd: z.string().max(4096).optional(),
  })
  .strict();
/**
 * `copilot` (Copilot CLI headless, docs/backends/copilot.md): the stdio config plus an optional
 * bring-your-own-key provider and model, which go into each `session.create` (the headless server
 * ignores the `COPILOT_PROVIDER_*` variables). `apiKey` is kept on the server, never shown.
 */
export const CopilotBackendConfig = StdioBackendConfig.extend({
  provider: z
    .object({
      type: z.enum(["openai", "azure", "anthropic"]).default("openai"),
      baseUrl: z.url(),
      apiKey: z.string().max(4000).optional(),
      wireApi: z.enum(["completions", "responses"]).optional(),
    })
    .strict()
    .optional(),
  model: z.string().trim().min(1).max(200).optional(),
}).strict();
/**
 * `acp` (docs/backends/acp.md): the stdio config; `acpVersion: 1` asks the agent for ACP v1 only
 * (by default the console speaks v2 with agents that offer it), for an agent whose v2 misbehaves.
 */
export const AcpBackendConfig = StdioBackendConfig.extend({
  acpVersion: z.literal(1).optional(),
}).strict();
/** An A2A agent: its URL (http or https only) and the bearer token it wants (kept on the server). */
export const A2aBackendConfig = z
  .object({ url: z.url({ protocol: /^https?$/ }).max(2000), token: z.string().max(4000).optional() })
  .strict();

/** `POST /api/a2a/card` — an A2A agent's card read by the server before the agent is added (docs/api.md). */
export const A2aCardRequest = A2aBackendConfig;
export const A2aCardPreview = z.object({
  card: AgentCardSummary,
  /** Whether the agent took the token: `none` when none was given and none is needed, `required` when one is. */
  token: z.enum(["accepted", "refused", "required", "none"]),
});
export type A2aCardPreview = z.infer<typeof A2aCardPreview>;

export const BackendDefinition = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("opencode"), label: nonEmpty.max(100), config: OpencodeBackendConfig.default({}) }),
  z.object({ kind: z.literal("acp"), label: nonEmpty.max(100), config: AcpBackendConfig }),
  z.object({ kind: z.enum(["opal", "zot"]), label: nonEmpty.max(100), config: StdioBackendConfig }),
  z.object({ kind: z.literal("copilot"), label: nonEmpty.max(100), config: CopilotBackendConfig }),
  z.object({ kind: z.literal("a2a"), label: nonEmpty.max(100), config: A2aBackendConfig }),
]);
export type BackendDefinition = z.infer<typeof BackendDefinition>;
export { BackendKind };

/** `POST …/interrupts/:i` — exactly one of the four shapes (docs/api.md, "Interrupts"). */
export const InterruptAnswer = z.union([
  z
    .object({
      decision: z.enum(["allow_once", "allow_always", "reject"]),
      message: z.string().trim().max(10_000).optional(),
    })
    .strict(),
  z
    .object({
      answers: z
        .array(z.array(z.string().max(10_000)).max(50))
        .min(1)
        .max(20),
    })
    .strict(),
  z.object({ dismiss: z.literal(true) }).strict(),
  z.object({ text: z.string().max(100_000) }).strict(),
  /** An input form (`Interrupt.input.schema`): accept with its values, or decline / cancel without. */
  z
    .object({
      action: z.enum(["accept", "decline", "cancel"]),
      values: z.record(z.string().max(200), z.union([z.string().max(100_000), z.number(), z.boolean()])).optional(),
    })
    .strict(),
]);
export type InterruptAnswer = z.infer<typeof InterruptAnswer>;

/* ------------------------------------------------------------------------- session tree and review */

const messageId = z.string().trim().min(1).max(200);

/** `POST …/fork` — from a message (user: the messages before it; assistant: through it) or whole. */
/** `POST /api/backends/:id/auth`: an API key for one of the backend's model providers (`Backend.auth`). */
export const ApiKeyBody = z
  .object({ provider: z.string().regex(/^[a-z][a-z0-9_-]{0,39}$/), apiKey: z.string().trim().min(1).max(4000) })
  .strict();
export type ApiKeyBody = z.infer<typeof ApiKeyBody>;

export const ForkBody = z.object({ messageId: messageId.optional() }).strict();
export type ForkBody = z.infer<typeof ForkBody>;

/** `POST …/revert` — undo this message and everything after it (files restored at once). */
export const RevertBody = z.object({ messageId }).strict();
export type RevertBody = z.infer<typeof RevertBody>;

/** `POST …/compact` — summarize the conversation (default: with the session's model). */
export const CompactBody = z.object({ model: ModelRef.optional() }).strict();
export type CompactBody = z.infer<typeof CompactBody>;

/** `GET …/diff?messageId` — the files a turn changed (messageId = the turn's user message). */
export const DiffQuery = z.object({ messageId: messageId.optional() }).strict();
export const DiffResult = z.object({ items: z.array(FileDiff) });
export type DiffResult = z.infer<typeof DiffResult>;

/**
 * `GET …/files?q=&limit=` — the session's workspace files matching `q` (an `@` mention being typed),
 * as paths relative to the session's directory, best matches first (docs/api.md, "File mentions").
 */
export const FileSearchQuery = z
  .object({
    q: z.string().max(500).default(""),
    limit: z.coerce.number().int().min(1).max(100).default(20),
  })
  .strict();
export type FileSearchQuery = z.infer<typeof FileSearchQuery>;
export const FileSearchResult = z.object({
  items: z.array(z.string()),
  /** Where they came from: the backend's own search, or `rg --files` in the session's directory. */
  source: z.enum(["backend", "workspace"]),
});
export type FileSearchResult = z.infer<typeof FileSearchResult>;

export const ExportQuery = z.object({ format: z.enum(["md", "json"]).default("md") }).strict();
export type ExportFormat = z.infer<typeof ExportQuery>["format"];

/** `GET …/export?format=json` */
export const SessionExport = z.object({
  session: Session,
  messages: z.array(Message),
  todos: z.array(Todo),
  exportedAt: z.number(),
});
export type SessionExport = z.infer<typeof SessionExport>;

/** One session of a family: how it relates to its parent node, and its own branches. */
export interface TreeNode {
  session: Session;
  relation: "root" | "fork" | "subagent";
  children: TreeNode[];
}
export const TreeNode: z.ZodType<TreeNode> = z.lazy(() =>
  z.object({ session: Session, relation: z.enum(["root", "fork", "subagent"]), children: z.array(TreeNode) }),
);

/** `GET …/tree` — the family of a session: forks (recorded by the console) and subagent children. */
export const SessionTree = z.object({ root: TreeNode, currentId: z.string(), truncated: z.boolean().optional() });
export type SessionTree = z.infer<typeof SessionTree>;

export const ModelInfo = z.object({
  provider: z.string(),
  providerLabel: z.string().optional(),
  id: z.string(),
  label: z.string(),
  isDefault: z.boolean().optional(),
  contextWindow: z.number().optional(),
});
export type ModelInfo = z.infer<typeof ModelInfo>;

/** `GET /api/backends/:b/models` */
export const ModelList = z.object({ items: z.array(ModelInfo), default: ModelRef.optional() });
export type ModelList = z.infer<typeof ModelList>;

export const AgentInfo = z.object({ id: z.string(), label: z.string(), description: z.string().optional() });
export type AgentInfo = z.infer<typeof AgentInfo>;

/** `GET /api/backends/:b/agents` — the agents / modes a prompt can run with. */
export const AgentList = z.object({ items: z.array(AgentInfo), default: z.string().optional() });
export type AgentList = z.infer<typeof AgentList>;
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
export const ShareExpiry = z.union([
  z.enum(SHARE_EXPIRIES),
  z
    .number()
    .int()
    .min(1)
    .max(365 * 86_400),
]);
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
  /** Who made it (docs/people.md); absent for shares made before people signed in. */
  createdBy: PersonRef.optional(),
});
export type ShareInfo = z.infer<typeof ShareInfo>;

/** `POST /api/shares` answers the token once; it is never retrievable again. */
export const CreatedShare = ShareInfo.extend({ token: z.string(), path: z.string(), url: z.string() });
export type CreatedShare = z.infer<typeof CreatedShare>;

export const ListSharesQuery = z
  .object({
    backendId: z.string().max(200).optional(),
    sessionId: z.string().max(300).optional(),
    state: z.enum(["active", "expired", "revoked", "all"]).default("all"),
  })
  .strict();
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
export const RedactionSettings = z.object({
  builtin: z.array(BuiltinRedactionRule),
  custom: z.array(RedactionPattern),
});
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
/** `POST …/sessions/:s/settings` — change one session option (see `SessionOption`). */
export const SessionSettingBody = z
  .object({ id: z.string().min(1).max(200), value: z.union([z.string().max(1000), z.boolean()]) })
  .strict();
export type SessionSettingBody = z.infer<typeof SessionSettingBody>;

/**
 * `POST /api/backends/:b/credentials` — values for an `env_var` auth method of an ACP agent
 * (docs/backends/acp.md#authentication). Kept on the server, passed to that agent only; an empty
 * value removes the variable. The agent is restarted with them.
 */
export const BackendCredentialsBody = z
  .object({
    methodId: z.string().min(1).max(200),
    vars: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/), z.string().max(8000)),
  })
  .strict();
export type BackendCredentialsBody = z.infer<typeof BackendCredentialsBody>;

/** `POST /api/backends/:b/login` — start an agent-run sign-in (an ACP device-code login). */
export const BackendLoginBody = z.object({ methodId: z.string().min(1).max(200) }).strict();
export type BackendLoginBody = z.infer<typeof BackendLoginBody>;

/** `GET /api/backends/presets` — ready-made backends of every kind, and whether their binary is installed. */
export const BackendPreset = z.object({
  id: z.string(),
  kind: BackendKind,
  label: z.string(),
  description: z.string(),
  command: z.array(z.string()),
  available: z.boolean(),
  /** Where the binary was found (when available). */
  path: z.string().optional(),
  /** Its version, when it is an npm package's bin. */
  version: z.string().optional(),
  /** Found only in the console's own node_modules (the copy its tests use), not on the user's PATH. */
  bundled: z.boolean().optional(),
});
export type BackendPreset = z.infer<typeof BackendPreset>;

/** `GET /api/backends/kinds` — the kinds this console can run, and how the settings page adds one. */
export const BackendKindInfo = z.object({
  kind: BackendKind,
  title: z.string(),
  form: z.enum(["command", "url", "none"]),
});
export type BackendKindInfo = z.infer<typeof BackendKindInfo>;

/** `GET /api/backends/:b/logs` — the stderr tail of a stdio agent. */
export const BackendLogs = z.object({ lines: z.array(z.string()) });
export type BackendLogs = z.infer<typeof BackendLogs>;

/* ------------------------------------------------------------------ the browser's live stream */

/**
 * A subscription's key on a multiplexed live stream (`GET /api/live`): chosen by the browser,
 * carried as the `event:` of every frame that belongs to it.
 */
export const LiveKey = z.string().regex(/^[a-z0-9]{1,32}$/, "lowercase letters and digits, at most 32");
const LiveCursor = z.number().int().nonnegative().optional();
export const LiveSubscription = z.discriminatedUnion("type", [
  /** The cross-session channel (as `GET /api/events`); without a held cursor it starts with `hello`. */
  z.object({ type: z.literal("global"), after: LiveCursor }).strict(),
  /** A session's timeline events after `after` (or `stream.reset` when that seq is no longer held). */
  z
    .object({
      type: z.literal("session"),
      backendId: z.string().min(1).max(200),
      sessionId: z.string().min(1).max(500),
      after: LiveCursor,
    })
    .strict(),
  /** A share's redacted events (as `GET /api/shares/public/:token/events`); needs only the token. */
  z.object({ type: z.literal("share"), token: z.string().min(1).max(200), after: LiveCursor }).strict(),
]);
export type LiveSubscription = z.infer<typeof LiveSubscription>;
/** `PUT /api/live/:streamId` — the whole set of subscriptions the stream should carry from now on. */
export const LiveSubscriptionsBody = z
  .object({ subscriptions: z.record(LiveKey, LiveSubscription) })
  .strict()
  .refine((b) => Object.keys(b.subscriptions).length <= 256, {
    message: "At most 256 subscriptions per stream",
    path: ["subscriptions"],
  });
export type LiveSubscriptionsBody = z.infer<typeof LiveSubscriptionsBody>;
export const LiveSubscriptionResult = z.union([
  z.object({ ok: z.literal(true) }),
  z.object({ ok: z.literal(false), status: z.number().int(), code: z.string(), message: z.string() }),
]);
export type LiveSubscriptionResult = z.infer<typeof LiveSubscriptionResult>;
/** The answer of `PUT /api/live/:streamId`: one result per key (a failed key does not fail the rest). */
export interface LiveSubscriptionsResult {
  results: Record<string, LiveSubscriptionResult>;
}
/** `GET /api/events/hello` — the cross-session state a tab starts from, and the seq to follow it after. */
export interface GlobalHello {
  seq: number;
  backends: Backend[];
  interrupts: (Interrupt & { backendId: string })[];
}
/** `GET /api/events/stats` — how many event streams the console has open (all kinds). */
export interface StreamStats {
  /** Every open SSE response: live streams, per-session and global streams, share streams. */
  open: number;
  /** Of those, multiplexed live streams (`GET /api/live`). */
  live: number;
}
