import "server-only";
import path from "node:path";
import { z } from "zod";
import type { BackendAuthMethod } from "@/lib/model";

/**
 * ACP authentication (docs/backends/acp.md#authentication): the `authMethods` an agent advertises at
 * `initialize`, read from the raw response (the SDK's v1 schema knows only `agent` and `terminal`
 * methods and drops an `env_var` method's `type` and `vars`), completed by what the console knows
 * about agents that take a credential from the environment without saying so, and matched against
 * the environment the agent runs with.
 */

const EnvVarSpec = z.object({
  name: z.string().min(1),
  label: z.string().nullish(),
  optional: z.boolean().nullish(),
  secret: z.boolean().nullish(),
});

/** One advertised method, as loose as agents send them (`type` absent = `agent`). */
const RawAuthMethod = z.object({
  id: z.string().min(1),
  name: z.string(),
  description: z.string().nullish(),
  type: z.string().nullish(),
  vars: z.array(EnvVarSpec).nullish(),
  link: z.string().nullish(),
  /** `terminal` methods: the arguments to run the agent's own command with. */
  args: z.array(z.string()).nullish(),
  _meta: z.record(z.string(), z.unknown()).nullish(),
});
type RawAuthMethod = z.infer<typeof RawAuthMethod>;

/** A method as the console uses it. */
export interface AuthMethodInfo {
  id: string;
  name: string;
  description?: string;
  type: "agent" | "env_var" | "terminal";
  vars: { name: string; label?: string; optional?: boolean; secret?: boolean }[];
  link?: string;
  /** The command line of a `terminal-auth` method (`_meta["terminal-auth"]`), for the help text. */
  command?: string;
  /** A `terminal` method's arguments to the agent's own command (ACP terminal auth). */
  args?: string[];
  /** What a terminal login runs (the command Settings shows, unshortened): Settings → *Run in terminal*. */
  run?: string[];
  /** An `agent` method that takes an API key in `authenticate`'s `_meta["api-key"].apiKey` (codex-acp's `api-key`). */
  apiKey?: boolean;
  /** `agent`: advertised by the agent (it gets the `authenticate` call); `console`: known by the console only. */
  origin: "agent" | "console";
}

/** The `authMethods` of a raw `initialize` result; malformed entries are skipped. */
export function readAuthMethods(result: unknown): AuthMethodInfo[] {
  const list = (result as { authMethods?: unknown } | null)?.authMethods;
  if (!Array.isArray(list)) return [];
  const out: AuthMethodInfo[] = [];
  for (const item of list) {
    const r = RawAuthMethod.safeParse(item);
    if (r.success) out.push(fromRaw(r.data));
  }
  return out;
}

function fromRaw(m: RawAuthMethod): AuthMethodInfo {
  const term = m._meta?.["terminal-auth"] as { command?: unknown; args?: unknown } | undefined;
  const args = Array.isArray(term?.args) ? term.args.filter((a): a is string => typeof a === "string") : [];
  const command = typeof term?.command === "string" ? [path.basename(term.command), ...args].join(" ") : undefined;
  const run = typeof term?.command === "string" ? [term.command, ...args] : undefined;
  const type = m.type === "env_var" || m.type === "terminal" ? m.type : "agent";
  const apiKey = type === "agent" && typeof m._meta?.["api-key"] === "object" && m._meta["api-key"] !== null;
  return {
    id: m.id,
    name: m.name,
    ...(m.description ? { description: m.description } : {}),
    type,
    vars:
      type === "env_var"
        ? (m.vars ?? []).map((v) => ({
            name: v.name,
            ...(v.label ? { label: v.label } : {}),
            ...(v.optional ? { optional: true } : {}),
            ...(v.secret === false ? { secret: false } : {}),
          }))
        : [],
    ...(m.link ? { link: m.link } : {}),
    ...(command ? { command } : {}),
    ...(run ? { run } : {}),
    ...(type === "terminal" && m.args?.length ? { args: m.args } : {}),
    ...(apiKey ? { apiKey: true } : {}),
    origin: "agent",
  };
}

/** The name a key-taking `agent` method's key field has in Settings (`BackendCredentialsBody.vars`). */
export const API_KEY_FIELD = "apiKey";

/**
 * `terminal` methods without a command of their own (`_meta["terminal-auth"]`) run the agent's own
 * command with their `args` (ACP terminal auth): the command line shown is the backend's.
 */
export function withTerminalCommands(methods: AuthMethodInfo[], agentCommand: readonly string[]): AuthMethodInfo[] {
  return methods.map((m) =>
    m.type === "terminal" && !m.command && m.args && agentCommand.length
      ? {
          ...m,
          command: [...agentCommand.map((c, i) => (i === 0 ? path.basename(c) : c)), ...m.args].join(" "),
          run: [...agentCommand, ...m.args],
        }
      : m,
  );
}

/**
 * What the console knows about agents that take a credential from an environment variable without
 * advertising an `env_var` method (by `agentInfo.name`):
 * - Gemini CLI's "Gemini API key" method reads `GEMINI_API_KEY` (it is an `agent` method with
 *   `_meta["api-key"]`); with the variable set, `authenticate` selects it.
 * - Claude Code's adapter advertises only its terminal login; the Claude Agent SDK reads
 *   `ANTHROPIC_API_KEY`. The console offers it as its own method (no `authenticate` call).
 */
const ANTHROPIC_KEY: AuthMethodInfo = {
  id: "anthropic-api-key",
  name: "Use ANTHROPIC_API_KEY",
  description: "An Anthropic API key, passed to Claude Code as ANTHROPIC_API_KEY.",
  type: "env_var",
  vars: [{ name: "ANTHROPIC_API_KEY" }],
  link: "https://console.anthropic.com/settings/keys",
  origin: "console",
};
const KNOWN: Record<string, { envOf?: Record<string, string[]>; extra?: AuthMethodInfo[] }> = {
  "gemini-cli": { envOf: { "gemini-api-key": ["GEMINI_API_KEY"] } },
  "@zed-industries/claude-code-acp": { extra: [ANTHROPIC_KEY] },
  // Its successor (`agentInfo.name` is its package name: dist/acp-agent.js of 0.101.0), which lists
  // its own logins as terminal methods only for clients that declare terminal auth.
  "@agentclientprotocol/claude-agent-acp": { extra: [ANTHROPIC_KEY] },
};

/** The agent's methods with what the console knows about it (`agentName` from `agentInfo.name`). */
export function withKnownMethods(methods: AuthMethodInfo[], agentName: string | undefined): AuthMethodInfo[] {
  const known = agentName ? KNOWN[agentName] : undefined;
  if (!known) return methods;
  const out = methods.map((m) => {
    const vars = known.envOf?.[m.id];
    if (!vars || m.type !== "agent") return m;
    const { apiKey: _, ...rest } = m;
    return { ...rest, type: "env_var" as const, vars: vars.map((name) => ({ name })) };
  });
  for (const extra of known.extra ?? []) if (!out.some((m) => m.id === extra.id)) out.push(extra);
  return out;
}

const hasValue = (env: Record<string, string>, name: string) => (env[name] ?? "").trim() !== "";

/** The first `env_var` method whose required variables all have a value in `env`. */
export function satisfiedMethod(methods: AuthMethodInfo[], env: Record<string, string>): AuthMethodInfo | undefined {
  return methods.find(
    (m) => m.type === "env_var" && m.vars.length > 0 && m.vars.every((v) => v.optional || hasValue(env, v.name)),
  );
}

/** An `agent` method the console can run for the user: a device-code login (codex-acp's `chat-gpt-device-code`). */
export const isDeviceLogin = (m: AuthMethodInfo) =>
  m.type === "agent" && !m.apiKey && m.origin === "agent" && /device/i.test(`${m.id} ${m.name}`);

/** The first key-taking `agent` method the console holds a key for (`keys`: by method id). */
export function keyedMethod(methods: AuthMethodInfo[], keys: Record<string, string>): AuthMethodInfo | undefined {
  return methods.find((m) => m.apiKey && m.origin === "agent" && hasValue(keys, m.id));
}

/**
 * Whether the console should check, after the handshake, that the agent can open a session: only for
 * agents that advertise an `env_var` method, a key-taking `agent` method or a device-code login of
 * their own (the credential is then something the settings page can supply or start) and have none
 * of them satisfied.
 */
export function shouldProbe(methods: AuthMethodInfo[], env: Record<string, string>): boolean {
  return (
    methods.some((m) => m.origin === "agent" && (m.type === "env_var" || m.apiKey || isDeviceLogin(m))) &&
    !satisfiedMethod(methods, env)
  );
}

/** The methods as the browser sees them: which variables and keys have a value, never the values. */
export function describeAuthMethods(
  methods: AuthMethodInfo[],
  env: Record<string, string>,
  keys: Record<string, string> = {},
): BackendAuthMethod[] {
  return methods.map((m) => ({
    id: m.id,
    name: m.name,
    ...(m.description ? { description: m.description } : {}),
    type: m.type,
    ...(m.type === "env_var" ? { vars: m.vars.map((v) => ({ ...v, set: hasValue(env, v.name) })) } : {}),
    ...(m.apiKey ? { vars: [{ name: API_KEY_FIELD, label: "API key", set: hasValue(keys, m.id) }] } : {}),
    ...(m.link ? { link: m.link } : {}),
    ...(m.command ? { command: m.command } : {}),
    ...(m.run?.length ? { runInTerminal: true } : {}),
    ...(m.origin === "console" ? { origin: "console" as const } : {}),
  }));
}

/** "Authentication required. Log in with X: …; Use OPENAI_API_KEY: … (enter it in Settings)". */
export function authHelp(methods: AuthMethodInfo[]): string {
  const ways = methods.map((m) => {
    const cmd = m.command && !(m.description ?? "").includes(m.command) ? ` (\`${m.command}\`)` : "";
    const settings =
      m.type === "env_var"
        ? ` (${m.vars.map((v) => v.name).join(", ")}: enter it in Settings)`
        : m.apiKey
          ? " (enter the key in Settings)"
          : "";
    return `${m.name}${m.description ? `: ${m.description}` : ""}${cmd}${settings}`;
  });
  return ways.length ? `Authentication required. ${ways.join("; ")}` : "Authentication required";
}

/** The values of `vars` merged into `current` (an empty value removes the variable). */
export function mergeCredentials(
  current: Record<string, string>,
  vars: Record<string, string>,
): Record<string, string> {
  const next = { ...current };
  for (const [k, v] of Object.entries(vars)) {
    if (v.trim() === "") delete next[k];
    else next[k] = v;
  }
  return next;
}
