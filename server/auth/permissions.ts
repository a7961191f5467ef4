import "server-only";
import { type AuditAction, type Need, type Role, roleAllows, whyNot } from "@/lib/people";

/**
 * What every API route needs (docs/security.md, "Roles"), in one table: the route wrapper
 * (server/http.ts) looks each request up here before the handler runs, refuses what the caller's
 * role does not allow (403), and records the audited actions once they succeeded. A route missing
 * from this table is refused to everyone; permissions.test.ts walks app/api and fails on one.
 *
 * `path` is the route's folder under app/ (`[param]` matches one segment).
 */
export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

export interface RouteRule {
  method: Method;
  path: string;
  need: Need;
  /** Recorded in the audit log when the route answers 2xx. */
  audit?: AuditAction;
  /** What the audit entry keeps of the request body and the answer (redacted before it is stored). */
  detail?: (body: Record<string, unknown>, answer: Record<string, unknown>) => Record<string, unknown>;
}

const B = "/api/backends/[backendId]";
const S = `${B}/sessions/[sessionId]`;

const promptText = (body: Record<string, unknown>) => {
  const parts = Array.isArray(body.parts) ? (body.parts as Record<string, unknown>[]) : [];
  const text = parts
    .map((p) => (p && typeof p.text === "string" ? p.text : ""))
    .join("\n")
    .trim();
  return { text: text.length > 500 ? `${text.slice(0, 500)}…` : text, parts: parts.length };
};

const answerDetail = (body: Record<string, unknown>) => {
  if (typeof body.decision === "string") return { decision: body.decision };
  if (typeof body.action === "string") return { decision: body.action };
  if (body.dismiss === true) return { decision: "dismiss" };
  if (Array.isArray(body.answers)) return { decision: "answered" };
  if (typeof body.text === "string") return { decision: "text" };
  return {};
};

const pick =
  (...keys: string[]) =>
  (from: Record<string, unknown>) =>
    Object.fromEntries(keys.filter((k) => from[k] !== undefined).map((k) => [k, from[k]]));

export const ROUTE_RULES: readonly RouteRule[] = [
  // Public: the login itself, the health check, the share links (their own token).
  { method: "GET", path: "/api/health", need: "public" },
  { method: "POST", path: "/api/auth/login", need: "public" },
  { method: "POST", path: "/api/auth/logout", need: "read" },
  { method: "GET", path: "/api/auth/oidc/login", need: "public" },
  { method: "GET", path: "/api/auth/oidc/callback", need: "public" },
  { method: "GET", path: "/api/shares/public/[token]/events", need: "public" },
  { method: "GET", path: "/api/shares/public/[token]/snapshot", need: "public" },
  { method: "GET", path: "/api/shares/public/live", need: "public" },
  { method: "PUT", path: "/api/shares/public/live/[streamId]", need: "public" },

  // Reads: everyone signed in.
  { method: "GET", path: "/api/me", need: "read" },
  { method: "GET", path: "/api/workspace", need: "read" },
  { method: "GET", path: "/api/backends", need: "read" },
  { method: "GET", path: "/api/backends/kinds", need: "read" },
  { method: "GET", path: "/api/backends/presets", need: "read" },
  { method: "GET", path: B, need: "read" },
  { method: "GET", path: `${B}/agents`, need: "read" },
  { method: "GET", path: `${B}/logs`, need: "read" },
  { method: "GET", path: `${B}/models`, need: "read" },
  { method: "GET", path: `${B}/sessions`, need: "read" },
  { method: "GET", path: S, need: "read" },
  { method: "GET", path: `${S}/diff`, need: "read" },
  { method: "GET", path: `${S}/events`, need: "read" },
  { method: "GET", path: `${S}/export`, need: "read" },
  { method: "GET", path: `${S}/files`, need: "read" },
  { method: "GET", path: `${S}/git`, need: "read" },
  { method: "GET", path: `${S}/fs`, need: "read" },
  { method: "GET", path: `${S}/fs/file`, need: "read" },
  { method: "GET", path: `${S}/messages`, need: "read" },
  { method: "GET", path: `${S}/snapshot`, need: "read" },
  { method: "GET", path: `${S}/tree`, need: "read" },
  { method: "GET", path: "/api/events", need: "read" },
  { method: "GET", path: "/api/events/hello", need: "read" },
  { method: "GET", path: "/api/events/stats", need: "read" },
  { method: "GET", path: "/api/live", need: "read" },
  // Says which streams this browser follows: a read.
  { method: "PUT", path: "/api/live/[streamId]", need: "read" },
  { method: "GET", path: "/api/search", need: "read" },
  { method: "GET", path: "/api/search/status", need: "read" },
  { method: "GET", path: "/api/shares", need: "read" },
  { method: "GET", path: "/api/compare", need: "read" },
  { method: "GET", path: "/api/compare/[compareId]", need: "read" },
  { method: "GET", path: "/api/compare/[compareId]/diff", need: "read" },
  { method: "GET", path: "/api/shares/patterns", need: "read" },

  // Working a session: operators and admins.
  { method: "POST", path: `${B}/sessions`, need: "operate" },
  { method: "PATCH", path: S, need: "operate" },
  { method: "DELETE", path: S, need: "operate" },
  { method: "POST", path: `${S}/prompt`, need: "operate", audit: "prompt", detail: promptText },
  { method: "POST", path: `${S}/abort`, need: "operate", audit: "abort" },
  {
    method: "POST",
    path: `${S}/interrupts/[interruptId]`,
    need: "operate",
    audit: "interrupt.answer",
    detail: answerDetail,
  },
  {
    method: "POST",
    path: `${S}/fork`,
    need: "operate",
    audit: "fork",
    detail: (b, a) => ({ ...pick("messageId")(b), ...pick("id")(a) }),
  },
  { method: "POST", path: `${S}/revert`, need: "operate", audit: "revert", detail: pick("messageId") },
  { method: "POST", path: `${S}/unrevert`, need: "operate" },
  { method: "POST", path: `${S}/compact`, need: "operate" },
  { method: "POST", path: `${S}/settings`, need: "operate" },
  // One task on several agents (docs/compare.md).
  {
    method: "POST",
    path: "/api/compare",
    need: "operate",
    audit: "compare.create",
    detail: (b, a) => ({ ...pick("testCommand")(b), ...pick("id")(a) }),
  },
  { method: "POST", path: "/api/compare/[compareId]/prompt", need: "operate", audit: "prompt" },
  // The start form's `@` mentions: a repository folder's file names, for those who may start one.
  { method: "GET", path: "/api/compare/files", need: "operate" },
  {
    method: "POST",
    path: "/api/compare/[compareId]/keep",
    need: "operate",
    audit: "compare.keep",
    detail: (b) => pick("sessionId", "how")(b),
  },
  // Workspace tools (docs/workspace.md): operators and admins.
  // A terminal is a shell with the console user's rights: operators and admins only, even to watch one.
  { method: "GET", path: `${S}/terminals`, need: "operate" },
  { method: "POST", path: `${S}/terminals`, need: "operate", audit: "terminal.open", detail: (_b, a) => pick("id")(a) },
  { method: "DELETE", path: `${S}/terminals/[terminalId]`, need: "operate" },
  { method: "GET", path: `${S}/terminals/[terminalId]/stream`, need: "operate" },
  { method: "POST", path: `${S}/terminals/[terminalId]/input`, need: "operate" },
  { method: "POST", path: `${S}/terminals/[terminalId]/resize`, need: "operate" },
  { method: "POST", path: `${S}/git/stage`, need: "operate" },
  { method: "POST", path: `${S}/git/unstage`, need: "operate" },
  {
    method: "POST",
    path: `${S}/git/commit`,
    need: "operate",
    audit: "git.commit",
    detail: (_b, a) => pick("commit")(a),
  },
  {
    method: "POST",
    path: `${S}/git/push`,
    need: "operate",
    audit: "git.push",
    detail: (_b, a) => pick("remote", "branch", "commit")(a),
  },
  {
    method: "POST",
    path: `${S}/git/merge`,
    need: "operate",
    audit: "git.merge",
    detail: (_b, a) => pick("into", "commit")(a),
  },
  {
    method: "POST",
    path: "/api/shares",
    need: "operate",
    audit: "share.create",
    detail: (b, a) => ({ ...pick("live", "includeToolOutput", "expiresIn", "upToMessageId")(b), ...pick("id")(a) }),
  },
  { method: "POST", path: "/api/shares/preview", need: "operate" },
  { method: "DELETE", path: "/api/shares/[shareId]", need: "operate", audit: "share.revoke" },

  // Web Push (docs/push.md): a person's own devices; anyone signed in may be notified. What a
  // notification's action answers is checked on its own route (operate).
  { method: "GET", path: "/api/push/key", need: "read" },
  { method: "GET", path: "/api/push/subscriptions", need: "read" },
  {
    method: "POST",
    path: "/api/push/subscriptions",
    need: "read",
    audit: "push.subscribe",
    detail: (b, a) => ({ ...pick("label")(b), ...pick("id")(a) }),
  },
  { method: "PATCH", path: "/api/push/subscriptions/[subscriptionId]", need: "read" },
  { method: "DELETE", path: "/api/push/subscriptions/[subscriptionId]", need: "read", audit: "push.unsubscribe" },
  { method: "POST", path: "/api/push/test", need: "read" },

  // Running the console: admins.
  { method: "GET", path: "/api/audit", need: "admin" },
  {
    method: "POST",
    path: "/api/backends",
    need: "admin",
    audit: "backend.add",
    detail: (b, a) => ({ ...pick("kind", "label")(b), ...pick("id")(a) }),
  },
  { method: "DELETE", path: B, need: "admin", audit: "backend.remove" },
  { method: "POST", path: `${B}/auth`, need: "admin" },
  { method: "POST", path: `${B}/credentials`, need: "admin" },
  { method: "POST", path: `${B}/login`, need: "admin" },
  // A backend's terminal login (Settings → *Run in terminal*): a process with the agent's environment.
  {
    method: "POST",
    path: `${B}/login-terminal`,
    need: "admin",
    audit: "terminal.open",
    detail: (b, a) => ({ ...pick("methodId")(b), ...pick("id")(a) }),
  },
  { method: "DELETE", path: `${B}/login-terminal/[terminalId]`, need: "admin" },
  { method: "GET", path: `${B}/login-terminal/[terminalId]/stream`, need: "admin" },
  { method: "POST", path: `${B}/login-terminal/[terminalId]/input`, need: "admin" },
  { method: "POST", path: `${B}/login-terminal/[terminalId]/resize`, need: "admin" },
  { method: "POST", path: `${B}/restart`, need: "admin" },
  { method: "POST", path: "/api/a2a/card", need: "admin" },
  {
    method: "PUT",
    path: "/api/search/settings",
    need: "admin",
    audit: "settings.change",
    detail: (b) => ({ setting: "search", ...b }),
  },
  {
    method: "POST",
    path: "/api/shares/patterns",
    need: "admin",
    audit: "settings.change",
    detail: (b) => ({ setting: "redaction-pattern.add", ...pick("label", "regex")(b) }),
  },
  {
    method: "DELETE",
    path: "/api/shares/patterns/[patternId]",
    need: "admin",
    audit: "settings.change",
    detail: () => ({ setting: "redaction-pattern.remove" }),
  },
];

function toRegex(path: string): RegExp {
  const body = path
    .split("/")
    .map((seg) => (/^\[[^\]]+\]$/.test(seg) ? "[^/]+" : seg.replace(/[.*+?^${}()|\\]/g, "\\$&")))
    .join("/");
  return new RegExp(`^${body}/?$`);
}

const COMPILED = ROUTE_RULES.map((r) => ({ rule: r, re: toRegex(r.path), literal: !r.path.includes("[") }));

/**
 * The rule for a request (a literal path wins over a pattern: `/api/backends/kinds` is not
 * `/api/backends/[backendId]`), or undefined when none is declared.
 */
export function ruleFor(method: string, pathname: string): RouteRule | undefined {
  const m = method.toUpperCase() === "HEAD" ? "GET" : method.toUpperCase();
  let found: (typeof COMPILED)[number] | undefined;
  for (const c of COMPILED) {
    if (c.rule.method !== m || !c.re.test(pathname)) continue;
    if (c.literal) return c.rule;
    found ??= c;
  }
  return found?.rule;
}

/**
 * Why a role may not make this request (the 403's message), or undefined when it may. An API path
 * no rule declares is refused to every role.
 */
export function refusal(method: string, pathname: string, role: Role): string | undefined {
  const rule = ruleFor(method, pathname);
  if (!rule) return `No role may ${method.toUpperCase()} ${pathname}`;
  if (roleAllows(role, rule.need)) return undefined;
  return `Your role (${role}) cannot do this: ${whyNot(role, rule.need)}`;
}
