import "server-only";
import { z } from "zod";
import type { AgentCard } from "@a2a-js/sdk";
import { DefaultAgentCardResolver } from "@a2a-js/sdk/client";
import type { AgentCardSummary } from "@/lib/model";
import { ApiError, describeError } from "../../errors";
import { A2aLimitError, MAX_CARD_BYTES, readText } from "./bounded-fetch";

/**
 * opencode-a2a's extensions by a key that does not depend on how they are named. Its generations:
 * the 0.x releases by URN (`urn:opencode-a2a:session-query/v1`, `urn:a2a:session-binding/v1`), the
 * release the console was designed from by its specification's URL (`https://github.com/
 * Intelligent-Internet/opencode-a2a/blob/main/docs/extension-specifications.md#shared-session-binding-v1`),
 * and the 1.0 release (A2A 1.0 on a2a-sdk 1.1) by its own URN namespace
 * `urn:opencode-a2a:extension:{shared|private}:<name>:v1` (docs/extension-specifications.md at
 * 33ec51a9c29d414d95772d198699d74e144ab9e1; its transition forms without the scope segment and its
 * raw `docs/extensions/{shared|private}/<name>/v1.md` URLs are read too). `extensionKey` maps each to
 * `session-binding/v1`. The 1.0 release renamed session-query to session-management.
 */
export const EXT = {
  sessionBinding: "session-binding/v1",
  modelSelection: "model-selection/v1",
  streamHints: "stream-hints/v1",
  sessionQuery: "session-query/v1",
  sessionManagement: "session-management/v1",
  providerDiscovery: "provider-discovery/v1",
  workspaceControl: "workspace-control/v1",
  interruptRecovery: "interrupt-recovery/v1",
  interactiveInterrupt: "interactive-interrupt/v1",
  compatibilityProfile: "compatibility-profile/v1",
  wireContract: "wire-contract/v1",
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

/** The URN namespace of opencode-a2a 1.0's extensions (contracts/extensions/identifiers.py `EXTENSION_URI_NAMESPACE`). */
export const OPENCODE_URN_NAMESPACE = "urn:opencode-a2a:extension:";

/**
 * The key of an extension URI when it is one of opencode-a2a's (or the shared `urn:a2a:` ones it
 * declares), else undefined: `urn:a2a:<name>/v1`, `urn:opencode-a2a:<name>/v1`,
 * `urn:opencode-a2a:extension:[shared:|private:]<name>:v1`, a URL of opencode-a2a's extension
 * specification whose fragment is `[shared-|opencode-|a2a-]<name>-v1`, or a URL of one of its
 * extension documents (`…/opencode-a2a/…/docs/extensions/{shared|private}/<name>/v1.md`).
 */
export function extensionKey(uri: string): string | undefined {
  const t = uri.trim();
  const urn = /^urn:(?:a2a|opencode-a2a):([a-z0-9-]+\/v\d+)$/i.exec(t);
  if (urn) return urn[1]!.toLowerCase();
  const urn10 = /^urn:opencode-a2a:extension:(?:(?:shared|private):)?([a-z0-9-]+):v(\d+)$/i.exec(t);
  if (urn10) return `${urn10[1]!.toLowerCase()}/v${urn10[2]}`;
  let u: URL;
  try {
    u = new URL(t);
  } catch {
    return undefined;
  }
  if (!/^https?:$/.test(u.protocol) || !/opencode-a2a/i.test(u.pathname)) return undefined;
  const doc = /\/docs\/extensions\/(?:shared|private)\/([a-z0-9-]+)\/v(\d+)\.md$/i.exec(u.pathname);
  if (doc && !u.hash) return `${doc[1]!.toLowerCase()}/v${doc[2]}`;
  if (!/extension-specifications/i.test(u.pathname)) return undefined;
  const m = /^#(?:shared-|opencode-|a2a-)?([a-z0-9-]+?)-v(\d+)$/i.exec(u.hash);
  return m ? `${m[1]!.toLowerCase()}/v${m[2]}` : undefined;
}

/**
 * The opencode-a2a extensions the console uses, to request with `A2A-Extensions`: opencode-a2a 1.0
 * activates an extension only when the client names it there (src/opencode_a2a/extension_negotiation.py
 * at 8aa02a7fad80704387cd3e02d427859b1afbe1af strips `metadata.shared.{session, model, stream,
 * progress, usage, interrupt}` from tasks and events otherwise; its docs/extension-specifications.md
 * at 33ec51a9 asks for the URI "before calling" each extension's methods). Workspace control, the
 * compatibility profile and the wire contract are not used (the latter two are descriptive, "not
 * activatable").
 */
const ACTIVATED = new Set<string>([
  EXT.sessionBinding,
  EXT.modelSelection,
  EXT.streamHints,
  EXT.interactiveInterrupt,
  EXT.sessionQuery,
  EXT.sessionManagement,
  EXT.providerDiscovery,
  EXT.interruptRecovery,
]);

/** The card's own URIs (exactly as declared) of the extensions the console asks to activate; none for a generic agent. */
export function activatedExtensions(card: AgentCard): string[] {
  if (detectProfile(card).kind !== "opencode") return [];
  const uris = (card.capabilities?.extensions ?? []).flatMap((e) => {
    const key = extensionKey(e.uri);
    return key && ACTIVATED.has(key) ? [e.uri.trim()] : [];
  });
  return [...new Set(uris)];
}

const Extension = z.looseObject({
  uri: z.string().max(2000),
  required: z.boolean().optional(),
  description: z.string().optional(),
  params: z.record(z.string(), z.unknown()).optional(),
});
const Interface = z.looseObject({
  url: z.string().min(1).max(2000),
  protocolBinding: z.string().max(50),
  protocolVersion: z.string().max(50).default(""),
  tenant: z.string().max(500).default(""),
});

/**
 * The part of an agent card (A2A 1.0, as the SDK's resolver makes it of a 1.0 or a 0.3 card) the
 * console relies on. Loose: unknown fields are kept, optional ones have defaults. A card that fails
 * it is refused with the first problem named.
 */
export const AgentCardSchema = z.looseObject({
  name: z.string().min(1).max(500),
  description: z.string().max(20_000).default(""),
  version: z.string().max(200).default(""),
  supportedInterfaces: z.array(Interface).min(1, "the card names no interface (url) to reach the agent at").max(50),
  capabilities: z
    .looseObject({
      streaming: z.boolean().optional(),
      pushNotifications: z.boolean().optional(),
      extendedAgentCard: z.boolean().optional(),
      extensions: z.array(Extension).max(200).default([]),
    })
    .default({ extensions: [] }),
  defaultInputModes: z.array(z.string()).default(["text/plain"]),
  defaultOutputModes: z.array(z.string()).default(["text/plain"]),
  skills: z
    .array(
      z.looseObject({
        id: z.string(),
        name: z.string(),
        description: z.string().optional(),
        tags: z.array(z.string()).optional(),
      }),
    )
    .max(500)
    .default([]),
  securitySchemes: z.record(z.string(), z.unknown()).default({}),
  securityRequirements: z.array(z.unknown()).default([]),
  signatures: z.array(z.unknown()).default([]),
});

const resolver = new DefaultAgentCardResolver({ legacyCompat: { enabled: true } });

/** A card as JSON (1.0, or 0.3 translated by the SDK's compat layer) validated into the SDK's 1.0 card. */
export function parseAgentCard(raw: unknown): AgentCard {
  let normalized: unknown;
  try {
    normalized = resolver.normalizeAgentCard(raw);
  } catch (err) {
    throw ApiError.upstream(`The agent card is not an A2A agent card (${describeError(err)})`);
  }
  const r = AgentCardSchema.safeParse(normalized);
  if (!r.success) {
    const first = r.error.issues[0];
    throw ApiError.upstream(
      `The agent card is not an A2A agent card${first ? ` (${first.path.join(".") || "card"}: ${first.message})` : ""}`,
      { issues: r.error.issues.slice(0, 10).map((i) => ({ path: i.path.join("."), message: i.message })) },
    );
  }
  return r.data as unknown as AgentCard;
}

/** The protocol version the console speaks to an agent: 1.0 when any interface offers it, else the card's (0.3). */
export function negotiatedVersion(card: AgentCard): "1.0" | "0.3" {
  return card.supportedInterfaces.some((i) =>
    i.protocolVersion.trim() === "" ? false : !/^0\./.test(i.protocolVersion.trim()),
  )
    ? "1.0"
    : "0.3";
}

/** What the console knows of an agent from its card. */
export interface AgentProfile {
  kind: "opencode" | "generic";
  /** JSON-RPC methods the agent says it answers (the wire contract), when it says. */
  methods?: ReadonlySet<string>;
  /** Keys of opencode-a2a's extensions the card declares (`extensionKey`). */
  extensions: ReadonlySet<string>;
  streaming: boolean;
}

function extensionParams(card: AgentCard, key: string): Record<string, unknown> | undefined {
  return card.capabilities?.extensions?.find((e) => extensionKey(e.uri) === key)?.params as
    | Record<string, unknown>
    | undefined;
}

/**
 * The profile of an agent: opencode-a2a when its card carries opencode-a2a's session query (0.x) or
 * session management (1.0) extension, any extension in opencode-a2a 1.0's own URN namespace (its
 * public card has only the shared ones), or a compatibility profile whose `profile_id` is
 * opencode-a2a's (any URI form); the JSON-RPC methods from the wire contract
 * (`all_jsonrpc_methods`, the runtime truth) when present.
 */
export function detectProfile(card: AgentCard): AgentProfile {
  const declared = card.capabilities?.extensions ?? [];
  const extensions = new Set(declared.flatMap((e) => extensionKey(e.uri) ?? []));
  const profile = extensionParams(card, EXT.compatibilityProfile);
  const profileId = profile?.profile_id ?? (profile?.profile as Record<string, unknown> | undefined)?.profile_id;
  const opencode =
    extensions.has(EXT.sessionQuery) ||
    extensions.has(EXT.sessionManagement) ||
    declared.some((e) => e.uri.trim().toLowerCase().startsWith(OPENCODE_URN_NAMESPACE) && extensionKey(e.uri)) ||
    (typeof profileId === "string" && profileId.startsWith("opencode-a2a"));
  const wire = extensionParams(card, EXT.wireContract)?.all_jsonrpc_methods;
  const methods = Array.isArray(wire) ? new Set(wire.filter((m): m is string => typeof m === "string")) : undefined;
  return {
    kind: opencode ? "opencode" : "generic",
    extensions,
    streaming: card.capabilities?.streaming === true,
    ...(methods ? { methods } : {}),
  };
}

/** Whether the agent answers `method`: by its wire contract, else by the extension that brings it. */
export function supports(p: AgentProfile, method: string): boolean {
  if (p.methods) return p.methods.has(method);
  if (p.kind !== "opencode") return false;
  if (method === OPENCODE_METHODS.sessions || method === OPENCODE_METHODS.messages)
    return p.extensions.has(EXT.sessionQuery) || p.extensions.has(EXT.sessionManagement);
  if (method === OPENCODE_METHODS.models || method === OPENCODE_METHODS.providers)
    return p.extensions.has(EXT.providerDiscovery);
  if (method === OPENCODE_METHODS.permissions || method === OPENCODE_METHODS.questions)
    return p.extensions.has(EXT.interruptRecovery);
  if (method.startsWith("a2a.interrupt.")) return p.extensions.has(EXT.interactiveInterrupt);
  return false;
}

/** Whether the public card says an authenticated extended card exists (1.0 `capabilities.extendedAgentCard`, 0.3 `supportsAuthenticatedExtendedCard`). */
export function hasExtendedCard(card: AgentCard): boolean {
  return (
    card.capabilities?.extendedAgentCard === true ||
    (card as unknown as { supportsAuthenticatedExtendedCard?: unknown }).supportsAuthenticatedExtendedCard === true
  );
}

/** The card as the settings page shows it. */
export function summarizeCard(
  card: AgentCard,
  reached?: { url: string; transport: string; version: string },
): AgentCardSummary {
  const profile = detectProfile(card);
  const auth = Object.values(card.securitySchemes ?? {}).map((s) => {
    const o = s as {
      type?: string;
      scheme?: string;
      httpAuthSecurityScheme?: { scheme?: string };
      scheme$case?: string;
    };
    const http = o.httpAuthSecurityScheme?.scheme ?? (o.type === "http" ? o.scheme : undefined);
    const proto = (s as { scheme?: { $case?: string; value?: { scheme?: string } } }).scheme;
    if (proto && typeof proto === "object" && proto.$case === "httpAuthSecurityScheme")
      return (proto.value?.scheme ?? "http").toLowerCase();
    if (proto && typeof proto === "object" && proto.$case) return proto.$case.replace(/SecurityScheme$/, "");
    return http ? http.toLowerCase() : (o.type ?? "unknown");
  });
  const clip = (s: string | undefined, n: number) => (s && s.length > n ? `${s.slice(0, n - 1)}…` : s);
  return {
    name: clip(card.name, 200)!,
    ...(card.description ? { description: clip(card.description, 2000)! } : {}),
    ...(card.version ? { version: clip(card.version, 100)! } : {}),
    protocolVersion: reached?.version ?? negotiatedVersion(card),
    url: reached?.url ?? card.supportedInterfaces[0]?.url,
    ...(reached ? { transport: reached.transport } : {}),
    ...(profile.kind === "opencode" ? { profile: "opencode-a2a" } : {}),
    streaming: profile.streaming,
    ...(card.capabilities?.pushNotifications !== undefined
      ? { pushNotifications: card.capabilities.pushNotifications }
      : {}),
    skills: (card.skills ?? []).slice(0, 50).map((s) => ({
      id: s.id,
      name: clip(s.name, 200)!,
      ...(s.description ? { description: clip(s.description, 500)! } : {}),
    })),
    extensions: (card.capabilities?.extensions ?? []).slice(0, 50).map((e) => ({
      uri: e.uri,
      ...(e.required !== undefined ? { required: e.required } : {}),
      ...(e.description ? { description: clip(e.description, 500)! } : {}),
    })),
    ...(auth.length ? { auth } : {}),
  };
}

/** The card URLs to try for a configured agent URL: the URL itself when it names a JSON file, else the well-known paths. */
export function cardUrls(agentUrl: string): string[] {
  const u = new URL(agentUrl);
  if (u.pathname.endsWith(".json")) return [u.toString()];
  const base = u.toString().endsWith("/") ? u.toString() : `${u.toString()}/`;
  const urls = [
    new URL(".well-known/agent-card.json", base).toString(),
    new URL("/.well-known/agent-card.json", base).toString(),
    new URL(".well-known/agent.json", base).toString(),
  ];
  return [...new Set(urls)];
}

const CARD_TIMEOUT_MS = 10_000;

/**
 * Fetches and validates an agent's card: the well-known paths in turn (a 404 tries the next), with
 * a timeout, no redirects, and the body read with a limit of 1 MiB (a larger card is refused as it
 * streams in, not after). Fails with an ApiError that says what went wrong (unreachable, not found,
 * too large, not a card).
 */
export async function fetchAgentCard(agentUrl: string, fetchImpl: typeof fetch): Promise<AgentCard> {
  let last = "";
  for (const url of cardUrls(agentUrl)) {
    let res: Response;
    const signal = AbortSignal.timeout(CARD_TIMEOUT_MS);
    try {
      res = await fetchImpl(url, { headers: { accept: "application/json" }, signal });
    } catch (err) {
      if (err instanceof A2aLimitError)
        throw ApiError.upstream(`The agent card at ${url} could not be read: ${err.message}`);
      if ((err as Error)?.name === "A2aAuthError") throw err;
      throw ApiError.upstream(`Could not reach the agent at ${new URL(url).origin}: ${describeError(err)}`);
    }
    if (res.status === 404) {
      await res.body?.cancel().catch(() => undefined);
      last = `${url} answered 404`;
      continue;
    }
    if (!res.ok) {
      await res.body?.cancel().catch(() => undefined);
      throw ApiError.upstream(`The agent card at ${url} answered HTTP ${res.status}`);
    }
    let text: string;
    try {
      text = await readText(res, MAX_CARD_BYTES, "The agent card");
    } catch (err) {
      throw ApiError.upstream(`The agent card at ${url} could not be read: ${describeError(err)}`);
    }
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
