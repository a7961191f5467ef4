import "server-only";
import type { AgentCard, SendMessageRequest } from "@a2a-js/sdk";
import {
  ClientFactory,
  JsonRpcTransportFactory,
  RestTransportFactory,
  ServiceParameters,
  withA2AExtensions,
  type Client,
  type RequestOptions,
  type Transport,
} from "@a2a-js/sdk/client";
import { ApiError, describeError, isApiError } from "../../errors";
import { arr, isObj, obj, str } from "../shared/values";
import type { A2aCardPreview } from "@/lib/api";
import { A2aAuthError, A2aLimitError, boundedFetch } from "./bounded-fetch";
import {
  activatedExtensions,
  detectProfile,
  fetchAgentCard,
  hasExtendedCard,
  negotiatedVersion,
  parseAgentCard,
  summarizeCard,
  type AgentProfile,
} from "./card";
import { toFrame } from "./frames";

export { A2aAuthError, A2aLimitError } from "./bounded-fetch";

/** How long one call (not a stream) may take. */
export const CALL_TIMEOUT_MS = 30_000;

/** A JSON-RPC (or REST) error as the agent sent it. */
export interface RpcFailure {
  code: number;
  message: string;
  /** opencode-a2a's error type (SESSION_NOT_FOUND, INTERRUPT_REQUEST_EXPIRED …): `error.data.type` (0.3) or an ErrorInfo `reason` (1.0). */
  type?: string;
  data: Record<string, unknown>;
}

/** `error.data` as one object: 0.3's object as is; 1.0's `google.rpc.ErrorInfo`-style details (`[{reason, metadata}]`) flattened. */
function errorData(raw: unknown): { type?: string; data: Record<string, unknown> } {
  if (isObj(raw)) {
    const type = str(raw.type) ?? str(raw.reason);
    return { data: raw, ...(type ? { type } : {}) };
  }
  for (const d of arr(raw)) {
    const o = obj(d);
    const reason = str(o.reason);
    if (reason) return { type: reason, data: { ...obj(o.metadata), type: reason } };
  }
  return { data: {} };
}

/**
 * The error the agent answered inside an error the SDK threw: its transports throw `A2AError`s
 * carrying the envelope's `envelopeCode` and `data` (or the raw `errorResponse`), possibly as the
 * `cause` of another error.
 */
export function rpcFailure(err: unknown): RpcFailure | undefined {
  for (let e: unknown = err, i = 0; e && i < 4; e = (e as { cause?: unknown }).cause, i++) {
    const o = e as {
      envelopeCode?: unknown;
      data?: unknown;
      message?: unknown;
      reason?: unknown;
      metadata?: unknown;
      errorResponse?: unknown;
    };
    const res = obj(o.errorResponse);
    const inner = obj(res.error);
    const code =
      typeof o.envelopeCode === "number" ? o.envelopeCode : typeof inner.code === "number" ? inner.code : undefined;
    if (code === undefined) continue;
    const { type, data } = errorData(o.data ?? inner.data);
    const sdkReason = typeof o.reason === "string" && o.reason ? o.reason : undefined;
    const t = type ?? (sdkReason && isObj(o.metadata) && Object.keys(o.metadata).length ? sdkReason : undefined);
    return { code, message: (str(inner.message) ?? str(o.message) ?? "").trim(), data, ...(t ? { type: t } : {}) };
  }
  return undefined;
}

function inChain<T>(err: unknown, test: (e: unknown) => e is T): T | undefined {
  for (let e: unknown = err, i = 0; e && i < 5; e = (e as { cause?: unknown }).cause, i++) if (test(e)) return e;
  return undefined;
}

export function isAuthError(err: unknown): err is A2aAuthError {
  return inChain(err, (e): e is A2aAuthError => e instanceof A2aAuthError) !== undefined;
}

export function limitError(err: unknown): A2aLimitError | undefined {
  return inChain(err, (e): e is A2aLimitError => e instanceof A2aLimitError);
}

/** The task is unknown to the agent (A2A `TaskNotFoundError`, -32001 without a business type). */
export function isTaskNotFound(err: unknown): boolean {
  const f = rpcFailure(err);
  if (f) return f.code === -32001 && (f.type === undefined || f.type === "TASK_NOT_FOUND");
  return inChain(err, (e): e is Error => e instanceof Error && e.name === "TaskNotFoundError") !== undefined;
}

/**
 * An error of the agent as the console's error: a bound or a redirect as what it is; switched on
 * opencode-a2a's error type when there is one (its codes overlap A2A's: -32002 is "upstream
 * unreachable" there and "task not cancelable" in A2A), else on the A2A code.
 */
export function mapA2aError(err: unknown, what: string, label: string): ApiError {
  if (isApiError(err)) return err;
  if (isAuthError(err))
    return ApiError.upstream(`${label} refused the console's token (check the token in the backend's settings)`);
  const limit = limitError(err);
  if (limit) return ApiError.upstream(`${label} could not ${what}: ${limit.message}`);
  const f = rpcFailure(err);
  if (!f) return ApiError.down(`${label} could not be reached to ${what}: ${describeError(err)}`);
  const say = `${label} could not ${what}: ${f.message || f.type || `error ${f.code}`}`;
  switch (f.type) {
    case "SESSION_NOT_FOUND":
    case "INTERRUPT_REQUEST_NOT_FOUND":
      return ApiError.notFound(say);
    case "SESSION_FORBIDDEN":
      return new ApiError("forbidden", say);
    case "INTERRUPT_REQUEST_EXPIRED":
      return new ApiError("gone", say);
    case "INTERRUPT_TYPE_MISMATCH":
    case "EXTENSION_SUPPORT_REQUIRED":
    case "METHOD_NOT_SUPPORTED":
    case "METHOD_DISABLED":
      return ApiError.conflict(say);
    case "UPSTREAM_UNREACHABLE":
      return ApiError.down(say);
    case "UPSTREAM_HTTP_ERROR":
    case "UPSTREAM_PAYLOAD_ERROR":
      return ApiError.upstream(say, {
        type: f.type,
        ...(f.data.upstream_status !== undefined ? { upstreamStatus: f.data.upstream_status } : {}),
      });
    default:
      break;
  }
  if (f.code === -32602) return ApiError.badRequest(say, f.type ? { type: f.type } : undefined);
  if (f.code === -32001) return ApiError.notFound(say);
  if (f.code === -32002 || f.code === -32004 || f.code === -32601) return ApiError.conflict(say);
  return ApiError.upstream(say, { code: f.code, ...(f.type ? { type: f.type } : {}) });
}

/**
 * The card with every interface on the origin the user configured: an interface elsewhere is
 * reached at the configured URL instead. The token is therefore only ever sent to the origin typed
 * in the settings — a card cannot send it elsewhere (and opencode-a2a's default public URL,
 * 127.0.0.1:8000, is often not where it is reached).
 */
export function pinInterfaces(configured: string, card: AgentCard): AgentCard {
  const base = new URL(configured);
  base.pathname = base.pathname.replace(/\/\.well-known\/[^/]*$/, "/").replace(/\/[^/]*\.json$/, "/");
  base.search = "";
  base.hash = "";
  const supportedInterfaces = card.supportedInterfaces.map((i) => {
    try {
      const u = new URL(i.url);
      if (u.origin === base.origin && /^https?:$/.test(u.protocol)) return i;
    } catch {
      // not a URL: the configured one
    }
    return { ...i, url: base.toString() };
  });
  return { ...card, supportedInterfaces };
}

/** What the console reached an agent with. */
export interface Reached {
  url: string;
  transport: string;
  version: "1.0" | "0.3";
}

/**
 * One connection to an A2A agent through `@a2a-js/sdk` 1.x: its card (the authenticated extended
 * card when the public one says there is one), a client on the transport the card prefers
 * (JSON-RPC or HTTP+JSON) at the version it offers (1.0, else 0.3 through the SDK's compat layer),
 * the SDK's JSON-RPC transport for extension methods (`opencode.*`, `a2a.interrupt.*`), and one
 * bounded `fetch` (./bounded-fetch.ts) under all of them that adds the token and `A2A-Version`.
 */
export class A2aConnection {
  readonly profile: AgentProfile;
  /**
   * The extensions the console asks the agent to activate on every call (`A2A-Extensions`): the
   * card's own URIs of the opencode-a2a extensions it uses (card.ts `activatedExtensions`). opencode-a2a
   * 1.0 strips the shared metadata (session, model, stream, progress, usage, interrupt) of an
   * extension not requested and refuses its methods; earlier releases ignore the header.
   */
  readonly extensions: readonly string[];

  private constructor(
    readonly card: AgentCard,
    private client: Client,
    private rpc: Transport | undefined,
    readonly reached: Reached,
  ) {
    this.profile = detectProfile(card);
    this.extensions = activatedExtensions(card);
  }

  /**
   * A call's options: its signal and the requested extensions as the SDK's service parameters
   * (`withA2AExtensions`). The SDK's `Client` writes them as the header the negotiated version
   * names (`A2A-Extensions` in 1.0, `X-A2A-Extensions` in 0.3); the JSON-RPC transport used for
   * extension methods sends them as given (`A2A-Extensions`).
   */
  private options(signal: AbortSignal): RequestOptions {
    return this.extensions.length
      ? { signal, serviceParameters: ServiceParameters.create(withA2AExtensions(...this.extensions)) }
      : { signal };
  }

  /** Reads the card at `url` and makes a client for it. */
  static async open(url: string, token: string | undefined): Promise<A2aConnection> {
    let version: "1.0" | "0.3" | undefined;
    const fetchImpl = boundedFetch({ ...(token ? { token } : {}), version: () => version });
    let card = pinInterfaces(url, await fetchAgentCard(url, fetchImpl));
    version = negotiatedVersion(card);
    // The SDK's client reads the extended card when the 1.0 flag says so (a 0.3 card's flag is another field).
    if (hasExtendedCard(card))
      card = { ...card, capabilities: { extensions: [], ...card.capabilities, extendedAgentCard: true } };
    const factory = new ClientFactory({
      transports: [
        new JsonRpcTransportFactory({ fetchImpl, legacyCompat: { enabled: true } }),
        new RestTransportFactory({ fetchImpl, legacyCompat: { enabled: true } }),
      ],
    });
    let client = await factory.createFromAgentCard(card);
    if (hasExtendedCard(card)) {
      // The detailed contract (opencode-a2a: its provider-private extensions) is on the extended card.
      try {
        const extended = await client.getAgentCard({ signal: AbortSignal.timeout(CALL_TIMEOUT_MS) });
        card = pinInterfaces(url, parseAgentCard(extended));
        client = await factory.createFromAgentCard(card);
      } catch (err) {
        if (isAuthError(err)) throw err;
        if (limitError(err))
          throw ApiError.upstream(`The agent's extended card could not be read: ${limitError(err)!.message}`);
        // Without it the public card is what the console knows.
      }
    }
    const transport = client.transport.protocolName;
    const jsonRpc = card.supportedInterfaces.find(
      (i) => i.protocolBinding.toUpperCase() === "JSONRPC" && (version === "0.3" || !/^0\./.test(i.protocolVersion)),
    );
    // Extension methods are plain JSON-RPC calls in both versions: the SDK's 1.0 JSON-RPC transport
    // carries them (with the negotiated `A2A-Version` from the fetch).
    const rpc = jsonRpc ? await new JsonRpcTransportFactory({ fetchImpl }).create(jsonRpc.url, card) : undefined;
    const endpoint =
      card.supportedInterfaces.find((i) => i.protocolBinding.toUpperCase() === transport.toUpperCase())?.url ?? url;
    return new A2aConnection(card, client, rpc, { url: endpoint, transport, version });
  }

  get streaming(): boolean {
    return this.profile.streaming;
  }

  /** A prompt streamed (`SendStreamingMessage` / `message/stream`): frames for the normalizer. */
  async *stream(params: SendMessageRequest, signal: AbortSignal): AsyncGenerator<Record<string, unknown>> {
    for await (const ev of this.client.sendMessageStream(params, this.options(signal))) yield toFrame(ev);
  }

  /** `SendMessage` without waiting (`returnImmediately`): the task comes back at once, then it is polled. */
  async send(params: SendMessageRequest, signal: AbortSignal): Promise<Record<string, unknown>> {
    const res = await this.client.sendMessage(
      {
        ...params,
        configuration: {
          acceptedOutputModes: [],
          taskPushNotificationConfig: undefined,
          ...params.configuration,
          returnImmediately: true,
        },
      },
      this.options(AbortSignal.any([signal, AbortSignal.timeout(CALL_TIMEOUT_MS)])),
    );
    return toFrame(res);
  }

  async *resubscribe(taskId: string, signal: AbortSignal): AsyncGenerator<Record<string, unknown>> {
    for await (const ev of this.client.resubscribeTask({ tenant: "", id: taskId }, this.options(signal)))
      yield toFrame(ev);
  }

  async getTask(taskId: string): Promise<Record<string, unknown>> {
    return toFrame(
      await this.client.getTask(
        { tenant: "", id: taskId, historyLength: 0 },
        this.options(AbortSignal.timeout(CALL_TIMEOUT_MS)),
      ),
    );
  }

  async cancelTask(taskId: string): Promise<Record<string, unknown>> {
    return toFrame(
      await this.client.cancelTask(
        { tenant: "", id: taskId, metadata: undefined },
        this.options(AbortSignal.timeout(CALL_TIMEOUT_MS)),
      ),
    );
  }

  /** An extension method (`opencode.*`, `a2a.interrupt.*`): its result, or the SDK's error. */
  async call(method: string, params: Record<string, unknown>): Promise<unknown> {
    const rpc = this.rpc as
      | (Transport & {
          callExtensionMethod?: (m: string, p: unknown, o?: RequestOptions) => Promise<unknown>;
        })
      | undefined;
    if (!rpc?.callExtensionMethod) throw ApiError.conflict(`The agent offers no JSON-RPC interface for ${method}`);
    const res = await rpc.callExtensionMethod(method, params, this.options(AbortSignal.timeout(CALL_TIMEOUT_MS)));
    return obj(res).result;
  }

  /**
   * Checks that the token is accepted with a cheap authenticated call: opencode-a2a's session list,
   * else getting a task that does not exist (any A2A answer means the token passed).
   */
  async checkToken(): Promise<void> {
    try {
      if (this.profile.kind === "opencode" && this.rpc) await this.call("opencode.sessions.list", { limit: 1 });
      else await this.getTask("switchboard-token-check");
    } catch (err) {
      if (isAuthError(err) || limitError(err)) throw err;
      if (rpcFailure(err)) return;
      if (err instanceof Error && /TaskNotFound|not found/i.test(`${err.name} ${err.message}`)) return;
      throw err;
    }
  }

  summary() {
    return summarizeCard(this.card, this.reached);
  }
}

/** `fetch` for one agent as the health check and the card preview use it (token, no redirects, bounded). */
export function authFetch(token: string | undefined): typeof fetch {
  return boundedFetch(token ? { token } : {});
}

/**
 * Reads an agent's card (server side) and tries the token, for the settings page to show before the
 * agent is saved (`POST /api/a2a/card`): the card's summary and whether the token was accepted.
 * The token is used for the one check and never returned.
 */
export async function previewAgent(url: string, token: string | undefined): Promise<A2aCardPreview> {
  let conn: A2aConnection;
  try {
    conn = await A2aConnection.open(url, token);
  } catch (err) {
    if (isAuthError(err)) {
      // The public card was read but the extended one refused the token.
      const card = summarizeCard(await fetchAgentCard(url, authFetch(undefined)));
      return { card, token: token ? "refused" : "required" };
    }
    throw mapA2aError(err, "be reached", new URL(url).host);
  }
  const card = conn.summary();
  try {
    await conn.checkToken();
  } catch (err) {
    if (isAuthError(err)) return { card, token: token ? "refused" : "required" };
    throw mapA2aError(err, "be reached", card.name);
  }
  return { card, token: token ? "accepted" : "none" };
}
