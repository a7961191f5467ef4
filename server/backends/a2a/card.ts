import "server-only";
import { z } from "zod";
import type { AgentCard } from "@a2a-js/sdk";
import type { AgentCardSummary } from "@/lib/model";
import { ApiError, describeError } from "../../errors";

/** Extension URIs of opencode-a2a's card (docs/backends/a2a.md, "The opencode-a2a profile"). */
export const EXT = {
  sessionBinding: "urn:a2a:session-binding/v1",
  modelSelection: "urn:a2a:model-selection/v1",
  streamHints: "urn:a2a:stream-hints/v1",
  sessionQuery: "urn:opencode-a2a:session-query/v1",
  providerDiscovery: "urn:opencode-a2a:provider-discovery/v1",
  workspaceControl: "urn:opencode-a2a:workspace-control/v1",
  interruptRecovery: "urn:opencode-a2a:interrupt-recovery/v1",
  interactiveInterrupt: "urn:a2a:interactive-interrupt/v1",
  compatibilityProfile: "urn:a2a:compatibility-profile/v1",
  wireContract: "urn:a2a:wire-contract/v1",
} as const;

/** The opencode-a2a JSON-RPC methods the console uses, by feature. */
export const OPENCODE_METHODS = {
  sessions: "opencode.sessions.list",
  messages: "opencode.sessions.messages.list",
  models: "opencode.models.list",
  providers: "opencode.providers.list",
  permissions: "opencode.permissions.list",
  questions: "opencode.questions.list",
  permissionReply: "a2a.interrupt.permission.reply",
  questionReply: "a2a.interrupt.question.reply",
  questionReject: "a2a.interrupt.question.reject",
} as const;

const Extension = z.looseObject({ uri: z.string(), required: z.boolean().optional(), description: z.string().optional(), params: z.record(z.string(), z.unknown()).optional() });

/**
 * The part of an A2A 0.3 agent card the console relies on. Loose: unknown fields are kept, and
 * optional ones that some agents leave out have defaults. A card that fails it is refused with the
 * first problem named.
 */
export const AgentCardSchema = z.looseObject({
  name: z.string().min(1).max(500),
  description: z.string().max(20_000).default(""),
  url: z.string().min(1).max(2000),
  version: z.string().max(200).default(""),
  protocolVersion: z.string().max(50).default("0.3.0"),
  preferredTransport: z.string().max(50).optional(),
  additionalInterfaces: z.array(z.looseObject({ transport: z.string(), url: z.string() })).optional(),
  capabilities: z
    .looseObject({
      streaming: z.boolean().optional(),
      pushNotifications: z.boolean().optional(),
      stateTransitionHistory: z.boolean().optional(),
      extensions: z.array(Extension).optional(),
    })
    .default({}),
  defaultInputModes: z.array(z.string()).default(["text/plain"]),
  defaultOutputModes: z.array(z.string()).default(["text/plain"]),
  skills: z.array(z.looseObject({ id: z.string(), name: z.string(), description: z.string().optional(), tags: z.array(z.string()).optional() })).default([]),
  securitySchemes: z.record(z.string(), z.looseObject({ type: z.string().optional(), scheme: z.string().optional() })).optional(),
  security: z.array(z.record(z.string(), z.array(z.string()))).optional(),
  supportsAuthenticatedExtendedCard: z.boolean().optional(),
});

/** Validates a card (the SDK's resolver has already normalized a protobuf-style one). */
export function parseAgentCard(raw: unknown): AgentCard {
  const r = AgentCardSchema.safeParse(raw);
  if (!r.success) {
    const first = r.error.issues[0];
    throw ApiError.upstream(`The agent card is not an A2A agent card${first ? ` (${first.path.join(".") || "card"}: ${first.message})` : ""}`, { issues: r.error.issues.slice(0, 10).map((i) => ({ path: i.path.join("."), message: i.message })) });
  }
  return r.data as unknown as AgentCard;
}

/** What the console knows of an agent from its card. */
export interface AgentProfile {
  kind: "opencode" | "generic";
  /** JSON-RPC methods the agent says it answers (the wire contract), when it says. */
  methods?: ReadonlySet<string>;
  extensions: ReadonlySet<string>;
  streaming: boolean;
}

function extensionParams(card: AgentCard, uri: string): Record<string, unknown> | undefined {
  return card.capabilities?.extensions?.find((e) => e.uri === uri)?.params;
}

/**
 * The profile of an agent: opencode-a2a when its card carries opencode-a2a's session query
 * extension or compatibility profile; the JSON-RPC methods from the wire contract
 * (`all_jsonrpc_methods`, the runtime truth) when present.
 */
export function detectProfile(card: AgentCard): AgentProfile {
  const extensions = new Set((card.capabilities?.extensions ?? []).map((e) => e.uri));
  const profileId = extensionParams(card, EXT.compatibilityProfile)?.profile_id;
  const opencode = extensions.has(EXT.sessionQuery) || (typeof profileId === "string" && profileId.startsWith("opencode-a2a"));
  const wire = extensionParams(card, EXT.wireContract)?.all_jsonrpc_methods;
  const methods = Array.isArray(wire) ? new Set(wire.filter((m): m is string => typeof m === "string")) : undefined;
  return { kind: opencode ? "opencode" : "generic", extensions, streaming: card.capabilities?.streaming === true, ...(methods ? { methods } : {}) };
}

/** Whether the agent answers `method`: by its wire contract, else by the extension that brings it. */
export function supports(p: AgentProfile, method: string): boolean {
  if (p.methods) return p.methods.has(method);
  if (p.kind !== "opencode") return false;
  if (method === OPENCODE_METHODS.sessions || method === OPENCODE_METHODS.messages) return p.extensions.has(EXT.sessionQuery);
  if (method === OPENCODE_METHODS.models || method === OPENCODE_METHODS.providers) return p.extensions.has(EXT.providerDiscovery);
  if (method === OPENCODE_METHODS.permissions || method === OPENCODE_METHODS.questions) return p.extensions.has(EXT.interruptRecovery);
  if (method.startsWith("a2a.interrupt.")) return p.extensions.has(EXT.interactiveInterrupt);
  return false;
}

/** The JSON-RPC endpoint: the card's JSON-RPC interface, else its url. */
export function jsonRpcUrl(card: AgentCard): string {
  const byTransport = [{ transport: card.preferredTransport ?? "JSONRPC", url: card.url }, ...(card.additionalInterfaces ?? [])];
  return byTransport.find((i) => i.transport.toUpperCase() === "JSONRPC")?.url ?? card.url;
}

/** The card as the settings page shows it. */
export function summarizeCard(card: AgentCard): AgentCardSummary {
  const profile = detectProfile(card);
  const auth = Object.values(card.securitySchemes ?? {}).map((s) => {
    const o = s as { type?: string; scheme?: string };
    return o.type === "http" && o.scheme ? o.scheme.toLowerCase() : (o.type ?? "unknown");
  });
  const clip = (s: string | undefined, n: number) => (s && s.length > n ? `${s.slice(0, n - 1)}…` : s);
  return {
    name: clip(card.name, 200)!,
    ...(card.description ? { description: clip(card.description, 2000)! } : {}),
    ...(card.version ? { version: clip(card.version, 100)! } : {}),
    ...(card.protocolVersion ? { protocolVersion: card.protocolVersion } : {}),
    url: jsonRpcUrl(card),
    ...(profile.kind === "opencode" ? { profile: "opencode-a2a" } : {}),
    streaming: profile.streaming,
    ...(card.capabilities?.pushNotifications !== undefined ? { pushNotifications: card.capabilities.pushNotifications } : {}),
    skills: (card.skills ?? []).slice(0, 50).map((s) => ({ id: s.id, name: clip(s.name, 200)!, ...(s.description ? { description: clip(s.description, 500)! } : {}) })),
    extensions: (card.capabilities?.extensions ?? []).slice(0, 50).map((e) => ({ uri: e.uri, ...(e.required !== undefined ? { required: e.required } : {}), ...(e.description ? { description: clip(e.description, 500)! } : {}) })),
    ...(auth.length ? { auth } : {}),
  };
}

/** The card URLs to try for a configured agent URL: the URL itself when it names a JSON file, else the well-known paths. */
export function cardUrls(agentUrl: string): string[] {
  const u = new URL(agentUrl);
  if (u.pathname.endsWith(".json")) return [u.toString()];
  const base = u.toString().endsWith("/") ? u.toString() : `${u.toString()}/`;
  const urls = [new URL(".well-known/agent-card.json", base).toString(), new URL("/.well-known/agent-card.json", base).toString(), new URL(".well-known/agent.json", base).toString()];
  return [...new Set(urls)];
}

const CARD_TIMEOUT_MS = 10_000;
const MAX_CARD_BYTES = 1024 * 1024;

/**
 * Fetches and validates an agent's card: the well-known paths in turn (a 404 tries the next), with a
 * timeout and a size limit. Fails with an ApiError that says what went wrong (unreachable, not
 * found, not a card).
 */
export async function fetchAgentCard(agentUrl: string, fetchImpl: typeof fetch = fetch): Promise<AgentCard> {
  let last = "";
  for (const url of cardUrls(agentUrl)) {
    let res: Response;
    try {
      res = await fetchImpl(url, { headers: { accept: "application/json" }, signal: AbortSignal.timeout(CARD_TIMEOUT_MS), redirect: "error" });
    } catch (err) {
      throw ApiError.upstream(`Could not reach the agent at ${new URL(url).origin}: ${describeError(err)}`);
    }
    if (res.status === 404) {
      await res.body?.cancel();
      last = `${url} answered 404`;
      continue;
    }
    if (!res.ok) {
      await res.body?.cancel();
      throw ApiError.upstream(`The agent card at ${url} answered HTTP ${res.status}`);
    }
    const text = await res.text();
    if (text.length > MAX_CARD_BYTES) throw ApiError.upstream("The agent card is too large");
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      throw ApiError.upstream(`The agent card at ${url} is not JSON`);
    }
    return parseAgentCard(raw);
  }
  throw ApiError.upstream(`No agent card found (${last})`);
}
