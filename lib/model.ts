/**
 * The canonical model (docs/architecture.md, "One model, one reducer"). Every adapter translates its protocol into these shapes and
 * nothing else; the browser knows only these. Isomorphic: no Node or DOM imports.
 */
import { z } from "zod";

export const BACKEND_KINDS = ["opencode", "acp", "copilot", "a2a", "opal", "zot"] as const;
export const BackendKind = z.enum(BACKEND_KINDS);
export type BackendKind = z.infer<typeof BackendKind>;

export const Capabilities = z.object({
  fork: z.boolean().default(false),
  /** Fork from any message, not only the whole session (ACP's `session/fork` copies all of it). */
  forkMessages: z.boolean().optional(),
  revert: z.boolean().default(false),
  diff: z.boolean().default(false),
  compact: z.boolean().default(false),
  models: z.boolean().default(false),
  share: z.boolean().default(false),
  history: z.boolean().default(false),
  abort: z.boolean().default(false),
  rename: z.boolean().default(false),
  delete: z.boolean().default(false),
  search: z.boolean().default(false),
  directories: z.boolean().default(false),
  /** Agents / modes to pick per prompt (OpenCode: primary agents such as build and plan). */
  agents: z.boolean().optional(),
  /** The backend keeps a todo list / plan for the session. */
  todos: z.boolean().optional(),
  /** Subagent child sessions can be listed (for the branch tree). */
  children: z.boolean().optional(),
  /**
   * Files a prompt can carry (lib/attachments.ts): images, and other files (text, PDF). Absent: the
   * backend's protocol has no way to take them, and the composer offers no attach control.
   */
  attachments: z.object({ images: z.boolean(), files: z.boolean() }).optional(),
  /**
   * `@` file mentions in the composer (docs/api.md, "File mentions"). `search`: where `…/files` finds
   * the session's files — `backend` its own file search (OpenCode), `workspace` `rg --files` in the
   * session's directory when it lies within the console's workspace roots. `carry`: how a picked
   * file goes with the prompt — `file` a file part with a `file://` URL the backend reads itself
   * (OpenCode attaches the content; an ACP agent gets a resource link), `text` only `@path` in the
   * text. Absent: no mentions.
   */
  mentions: z.object({ search: z.enum(["backend", "workspace"]), carry: z.enum(["file", "text"]) }).optional(),
  interrupts: z
    .object({
      permission: z.boolean().default(false),
      question: z.boolean().default(false),
      input: z.boolean().default(false),
    })
    .default({ permission: false, question: false, input: false }),
});
export type Capabilities = z.infer<typeof Capabilities>;

export const BackendStatus = z.enum(["connecting", "ready", "down", "auth-required"]);
export type BackendStatus = z.infer<typeof BackendStatus>;

/** What a stdio backend runs, as shown to the browser: env values are always masked as "***". */
export const BackendCommand = z.object({
  command: z.array(z.string()),
  env: z.record(z.string(), z.string()).optional(),
  cwd: z.string().optional(),
});
export type BackendCommand = z.infer<typeof BackendCommand>;

/**
 * What an A2A agent's card says (server/backends/a2a/card.ts), as the settings page shows it:
 * who it is, what it can do and which extensions it speaks. Never carries the token.
 */
export const AgentCardSummary = z.object({
  name: z.string(),
  description: z.string().optional(),
  version: z.string().optional(),
  protocolVersion: z.string().optional(),
  /** The endpoint the console speaks to (from the card). */
  url: z.string().optional(),
  /** The transport it speaks there: `JSONRPC` or `HTTP+JSON`. */
  transport: z.string().optional(),
  /** A profile recognized from the card's extensions ("opencode-a2a"), else absent (plain A2A). */
  profile: z.string().optional(),
  streaming: z.boolean(),
  pushNotifications: z.boolean().optional(),
  skills: z.array(z.object({ id: z.string(), name: z.string(), description: z.string().optional() })),
  extensions: z.array(
    z.object({ uri: z.string(), required: z.boolean().optional(), description: z.string().optional() }),
  ),
  /** Security schemes the card declares ("bearer", "apiKey" …). */
  auth: z.array(z.string()).optional(),
});
export type AgentCardSummary = z.infer<typeof AgentCardSummary>;

/**
 * A way to authenticate an agent, from what it advertises at `initialize` (ACP `authMethods`):
 * `agent` (the agent does it itself, e.g. a browser login), `terminal` (a command to run in a
 * terminal), `env_var` (credentials passed to the agent as environment variables, which the
 * settings page can fill in). `vars[].set` says whether the console holds a value; values never
 * reach the browser. `origin: "console"` marks a method the console knows about an agent that does
 * not advertise it itself (docs/backends/acp.md).
 */
export const BackendAuthMethod = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().optional(),
  type: z.enum(["agent", "env_var", "terminal"]),
  vars: z
    .array(
      z.object({
        name: z.string(),
        label: z.string().optional(),
        optional: z.boolean().optional(),
        secret: z.boolean().optional(),
        set: z.boolean(),
      }),
    )
    .optional(),
  /** Where to get the credential. */
  link: z.string().optional(),
  /** For `terminal`: the command line to run. */
  command: z.string().optional(),
  /** A terminal login the console can run in its own terminal: Settings offers *Run in terminal*. */
  runInTerminal: z.boolean().optional(),
  origin: z.enum(["agent", "console"]).optional(),
  /** An `agent` method the console runs for the user (a device-code login): Settings offers *Sign in*. */
  signIn: z.boolean().optional(),
  /** A sign-in started from Settings: the link to open and the agent's message with the code, or why it failed. */
  login: z
    .object({ url: z.string().optional(), message: z.string().optional(), error: z.string().optional() })
    .optional(),
});
export type BackendAuthMethod = z.infer<typeof BackendAuthMethod>;

export const Backend = z.object({
  id: z.string(),
  kind: BackendKind,
  label: z.string(),
  status: BackendStatus,
  error: z.string().optional(),
  capabilities: Capabilities,
  /** Where the backend lives, for display only (never carries secrets). */
  location: z.string().optional(),
  version: z.string().optional(),
  /** The protocol spoken, when a kind has several (OpenCode: "/api (OpenCode 2), detected" or "V1 routes, …"). */
  protocol: z.string().optional(),
  /** Permission rules the backend keeps from "always" answers, as `action: resource` (OpenCode's `/api`). */
  savedRules: z.array(z.string()).optional(),
  embedded: z.boolean().optional(),
  /** Where it came from: the environment (`SWITCHBOARD_BACKENDS`), the store (added at run time) or the console itself. */
  source: z.enum(["env", "store", "embedded"]).optional(),
  /** For stdio agents: the configured command line (env values masked). */
  config: BackendCommand.optional(),
  /** For A2A agents: what the agent card says. */
  agent: AgentCardSummary.optional(),
  /** Model providers the backend can be logged in to, and which are ready (Opal's `auth/status`). Keys are never sent. */
  auth: z
    .object({
      providers: z.array(
        z.object({
          id: z.string(),
          name: z.string(),
          /** `api_key`: a key can be set from Settings; `device_code`: the backend's own login flow. */
          method: z.enum(["api_key", "device_code"]),
          ready: z.boolean(),
          envVar: z.string().optional(),
        }),
      ),
    })
    .optional(),
  /** For ACP agents: how they can be authenticated (what `initialize` advertised). */
  authMethods: z.array(BackendAuthMethod).optional(),
  /** For stdio agents: the supervised process. */
  process: z
    .object({
      state: z.enum(["idle", "starting", "running", "restarting", "stopped"]),
      pid: z.number().optional(),
      restarts: z.number(),
      lastExit: z.string().optional(),
    })
    .optional(),
});
export type Backend = z.infer<typeof Backend>;

export const Usage = z.object({
  inputTokens: z.number(),
  outputTokens: z.number(),
  reasoningTokens: z.number().optional(),
  cacheReadTokens: z.number().optional(),
  cacheWriteTokens: z.number().optional(),
  costUsd: z.number().optional(),
  contextTokens: z.number().optional(),
  contextWindow: z.number().optional(),
});
export type Usage = z.infer<typeof Usage>;

export const ModelRef = z.object({ provider: z.string().optional(), id: z.string() });
export type ModelRef = z.infer<typeof ModelRef>;

/**
 * A session setting the agent offers (ACP modes and config options: mode, model, reasoning effort,
 * permissions…). `source` says how it is changed: `mode` through the agent's mode switch, `config`
 * through its config options.
 */
export const SessionOption = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().optional(),
  category: z.string().optional(),
  source: z.enum(["mode", "config"]),
  type: z.enum(["select", "boolean"]),
  value: z.union([z.string(), z.boolean()]),
  choices: z.array(z.object({ value: z.string(), name: z.string(), description: z.string().optional() })),
});
export type SessionOption = z.infer<typeof SessionOption>;

export const SessionSettings = z.object({
  options: z.array(SessionOption),
  /** Slash commands the agent advertises. */
  commands: z
    .array(z.object({ name: z.string(), description: z.string().optional(), hint: z.string().optional() }))
    .optional(),
});
export type SessionSettings = z.infer<typeof SessionSettings>;

/**
 * Who did something through the console (docs/people.md, "Attribution"): the signed-in person's
 * id (the provider's `sub`, or `token` for the console token) and display name. The console, not
 * the backend, records it.
 */
export const PersonRef = z.object({ id: z.string().min(1).max(300), name: z.string().max(300) });
export type PersonRef = z.infer<typeof PersonRef>;

/** An interrupt someone answered through the console: who, and how (`allow_once`, `reject`, …). */
export const AnsweredInterrupt = z.object({
  interruptId: z.string(),
  kind: z.enum(["permission", "question", "input"]),
  title: z.string().max(2000),
  decision: z.string().max(100),
  answeredBy: PersonRef,
  at: z.number(),
});
export type AnsweredInterrupt = z.infer<typeof AnsweredInterrupt>;

export const SessionStatus = z.enum(["idle", "busy", "retry", "waiting", "error"]);
export type SessionStatus = z.infer<typeof SessionStatus>;

export const Session = z.object({
  id: z.string(),
  backendId: z.string(),
  title: z.string(),
  directory: z.string().optional(),
  /** The git worktree the console made for this session (docs/workspace.md). */
  worktree: z.object({ path: z.string(), branch: z.string(), base: z.string() }).optional(),
  parentId: z.string().optional(),
  forkedFrom: z.object({ sessionId: z.string(), messageId: z.string().optional() }).optional(),
  createdAt: z.number(),
  updatedAt: z.number(),
  status: SessionStatus,
  /** Detail of a `retry` or `error` status, e.g. the upstream's message and next attempt time. */
  statusDetail: z.string().optional(),
  model: ModelRef.optional(),
  usage: Usage.optional(),
  revert: z
    .object({
      messageId: z.string(),
      diff: z.string().optional(),
      /** The backend restores the files (and drops the messages) only with the next prompt (Copilot's rewind); Unrevert until then. */
      deferred: z.boolean().optional(),
    })
    .optional(),
  share: z.object({ url: z.string().optional() }).optional(),
  settings: SessionSettings.optional(),
  /** Who created the session through the console (absent for sessions made elsewhere). */
  createdBy: PersonRef.optional(),
});
export type Session = z.infer<typeof Session>;

export const FileDiff = z.object({
  path: z.string(),
  status: z.enum(["added", "modified", "deleted"]),
  additions: z.number(),
  deletions: z.number(),
  patch: z.string(),
});
export type FileDiff = z.infer<typeof FileDiff>;

/** A file a turn changed, without its patch (the per-turn summary; patches come from `…/diff`). */
export const FileChange = FileDiff.omit({ patch: true });
export type FileChange = z.infer<typeof FileChange>;

export const TOOL_NAMES = [
  "bash",
  "read",
  "write",
  "edit",
  "patch",
  "grep",
  "glob",
  "list",
  "webfetch",
  "task",
  "todo",
  "question",
  "other",
] as const;
export const ToolName = z.enum(TOOL_NAMES);
export type ToolName = z.infer<typeof ToolName>;

export const ToolStatus = z.enum([
  "pending",
  "running",
  "awaiting-approval",
  "completed",
  "error",
  "denied",
  "cancelled",
]);
export type ToolStatus = z.infer<typeof ToolStatus>;

export const TextBlock = z.object({ id: z.string(), kind: z.literal("text"), text: z.string() });
export const ReasoningBlock = z.object({
  id: z.string(),
  kind: z.literal("reasoning"),
  text: z.string(),
  startedAt: z.number().optional(),
  endedAt: z.number().optional(),
});
export const ToolBlock = z.object({
  id: z.string(),
  kind: z.literal("tool"),
  callId: z.string(),
  tool: ToolName,
  rawTool: z.string(),
  title: z.string().optional(),
  status: ToolStatus,
  input: z.record(z.string(), z.unknown()),
  output: z.string().optional(),
  error: z.string().optional(),
  exitCode: z.number().optional(),
  diff: z.array(FileDiff).optional(),
  childSessionId: z.string().optional(),
  startedAt: z.number().optional(),
  endedAt: z.number().optional(),
});
export const FileBlock = z.object({
  id: z.string(),
  kind: z.literal("file"),
  name: z.string(),
  mime: z.string(),
  url: z.string(),
});
export const NoticeBlock = z.object({
  id: z.string(),
  kind: z.literal("notice"),
  level: z.enum(["info", "warn", "error"]),
  text: z.string(),
  /** What the notice marks, when the view treats it specially (`compaction` draws a divider). */
  code: z.enum(["compaction", "retry", "abort", "error"]).optional(),
});
export const Block = z.discriminatedUnion("kind", [TextBlock, ReasoningBlock, ToolBlock, FileBlock, NoticeBlock]);
export type TextBlock = z.infer<typeof TextBlock>;
export type ReasoningBlock = z.infer<typeof ReasoningBlock>;
export type ToolBlock = z.infer<typeof ToolBlock>;
export type FileBlock = z.infer<typeof FileBlock>;
export type NoticeBlock = z.infer<typeof NoticeBlock>;
export type Block = z.infer<typeof Block>;

export const MessageError = z.object({
  name: z.string(),
  message: z.string(),
  /** true when the user stopped the turn; shown calmly rather than as a failure. */
  aborted: z.boolean().optional(),
});
export type MessageError = z.infer<typeof MessageError>;

/** Message metadata as carried by `message.updated` (no blocks). */
export const MessageInfo = z.object({
  id: z.string(),
  sessionId: z.string(),
  role: z.enum(["user", "assistant", "system"]),
  createdAt: z.number(),
  completedAt: z.number().optional(),
  model: ModelRef.optional(),
  agent: z.string().optional(),
  usage: Usage.optional(),
  error: MessageError.optional(),
  /** For a compaction summary produced by the backend. */
  summary: z.boolean().optional(),
  /** On a user message: the files its turn changed (OpenCode's `summary.diffs`, without patches). */
  diffs: z.array(FileChange).optional(),
  /** On an assistant message: the user message it answers. */
  parentId: z.string().optional(),
  /** On a user message sent through the console: who sent it. */
  author: PersonRef.optional(),
  /** The interrupts of this message someone answered through the console, oldest first. */
  answered: z.array(AnsweredInterrupt).max(1000).optional(),
});
export type MessageInfo = z.infer<typeof MessageInfo>;

export const Message = MessageInfo.extend({ blocks: z.array(Block) });
export type Message = z.infer<typeof Message>;

export const PermissionOption = z.object({
  id: z.string(),
  label: z.string(),
  kind: z.enum(["allow_once", "allow_always", "reject"]),
});
export const Question = z.object({
  header: z.string().optional(),
  question: z.string(),
  options: z.array(z.object({ label: z.string(), description: z.string().optional() })),
  multiple: z.boolean().optional(),
  custom: z.boolean().optional(),
  /** The question is markdown (a plan to review): rendered like the model's text, inert. */
  markdown: z.boolean().optional(),
});
export type Question = z.infer<typeof Question>;

/**
 * One field of an input form (`Interrupt.input.schema`): the JSON-schema subset MCP elicitation
 * uses — a string (optionally an enum or a format), a number, an integer or a boolean.
 */
export const InputField = z.object({
  type: z.enum(["string", "number", "integer", "boolean"]),
  title: z.string().optional(),
  description: z.string().optional(),
  /** For a string: the allowed values (a select), with optional display names in the same order. */
  enum: z.array(z.string()).optional(),
  enumNames: z.array(z.string()).optional(),
  format: z.enum(["email", "uri", "date", "date-time"]).optional(),
  minLength: z.number().int().nonnegative().optional(),
  maxLength: z.number().int().nonnegative().optional(),
  minimum: z.number().optional(),
  maximum: z.number().optional(),
  default: z.union([z.string(), z.number(), z.boolean()]).optional(),
});
export type InputField = z.infer<typeof InputField>;

/** The form an `input` interrupt asks to be filled in: fields in display order, some required. */
export const InputSchema = z.object({
  type: z.literal("object"),
  properties: z.record(z.string(), InputField),
  required: z.array(z.string()).optional(),
});
export type InputSchema = z.infer<typeof InputSchema>;

export const Interrupt = z.object({
  id: z.string(),
  sessionId: z.string(),
  kind: z.enum(["permission", "question", "input"]),
  toolCallId: z.string().optional(),
  messageId: z.string().optional(),
  /**
   * For an interrupt raised in a subagent's child session: the root session that shows it (the
   * one whose `task` tool spawned the child). It is answered through either session.
   */
  ownerSessionId: z.string().optional(),
  createdAt: z.number(),
  title: z.string(),
  permission: z
    .object({
      action: z.string(),
      patterns: z.array(z.string()),
      always: z.array(z.string()).optional(),
      options: z.array(PermissionOption),
      /** The file it wants to change, and the change as a unified diff (edits and writes). */
      path: z.string().optional(),
      diff: z.string().optional(),
    })
    .optional(),
  questions: z.array(Question).optional(),
  /**
   * Free text (`{text}` answers) or, with `schema`, a form answered with accept / decline / cancel
   * (`{action, values?}`; lib/input-form.ts validates the values on both sides).
   */
  input: z.object({ prompt: z.string(), sensitive: z.boolean().optional(), schema: InputSchema.optional() }).optional(),
});
export type Interrupt = z.infer<typeof Interrupt>;

export const Todo = z.object({
  content: z.string(),
  status: z.string(),
  priority: z.string().optional(),
});
export type Todo = z.infer<typeof Todo>;

/* ----------------------------------------------------------------------------------------------
 * Timeline events (docs/api.md, "Event stream"). `seq` is added on the wire by the hub.
 * -------------------------------------------------------------------------------------------- */

export const TimelineEvent = z.discriminatedUnion("type", [
  z.object({ type: z.literal("session.updated"), session: Session }),
  z.object({
    type: z.literal("session.status"),
    status: SessionStatus,
    detail: z.string().optional(),
  }),
  z.object({ type: z.literal("message.updated"), message: MessageInfo }),
  z.object({ type: z.literal("message.removed"), messageId: z.string() }),
  z.object({ type: z.literal("block.updated"), messageId: z.string(), block: Block }),
  z.object({
    type: z.literal("block.delta"),
    messageId: z.string(),
    blockId: z.string(),
    field: z.enum(["text", "output"]),
    delta: z.string(),
  }),
  z.object({ type: z.literal("block.removed"), messageId: z.string(), blockId: z.string() }),
  z.object({ type: z.literal("interrupt.requested"), interrupt: Interrupt }),
  z.object({
    type: z.literal("interrupt.resolved"),
    interruptId: z.string(),
    outcome: z.string(),
    /** Set when someone answered it through the console: the record kept on `messageId`'s message. */
    answered: AnsweredInterrupt.extend({ messageId: z.string() }).optional(),
  }),
  z.object({ type: z.literal("todo.updated"), todos: z.array(Todo) }),
  z.object({ type: z.literal("usage.updated"), usage: Usage }),
  z.object({ type: z.literal("error"), message: z.string(), code: z.string().optional() }),
  z.object({ type: z.literal("stream.reset"), reason: z.string() }),
]);
export type TimelineEvent = z.infer<typeof TimelineEvent>;
export type WireEvent = TimelineEvent & { seq: number };

/** What `GET …/snapshot` answers. */
export const Snapshot = z.object({
  session: Session,
  messages: z.array(Message),
  interrupts: z.array(Interrupt),
  todos: z.array(Todo),
  seq: z.number(),
  /** true when older messages exist before the first one here (page them with `…/messages`). */
  hasOlder: z.boolean().optional(),
  olderCursor: z.string().optional(),
  lastError: z.object({ message: z.string(), code: z.string().optional() }).optional(),
});
export type Snapshot = z.infer<typeof Snapshot>;

/** Events on `GET /api/events`, the cross-session channel (badges, inbox, notifications). */
export const GlobalEvent = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("hello"),
    backends: z.array(Backend),
    /** Every pending interrupt, so the inbox is whole after a (re)connect. */
    interrupts: z.array(Interrupt.extend({ backendId: z.string() })),
  }),
  z.object({ type: z.literal("backend.updated"), backend: Backend }),
  z.object({ type: z.literal("backend.removed"), backendId: z.string() }),
  z.object({ type: z.literal("session.updated"), session: Session }),
  z.object({ type: z.literal("session.removed"), backendId: z.string(), sessionId: z.string() }),
  z.object({
    type: z.literal("session.status"),
    backendId: z.string(),
    sessionId: z.string(),
    status: SessionStatus,
    detail: z.string().optional(),
  }),
  z.object({
    type: z.literal("interrupt.requested"),
    backendId: z.string(),
    interrupt: Interrupt,
  }),
  z.object({
    type: z.literal("interrupt.resolved"),
    backendId: z.string(),
    sessionId: z.string(),
    interruptId: z.string(),
    outcome: z.string(),
  }),
]);
export type GlobalEvent = z.infer<typeof GlobalEvent>;
