import "server-only";
import type { AgentCard, Message, MessageSendParams, Task } from "@a2a-js/sdk";
import { ClientFactory, createAuthenticatingFetchWithRetry, JsonRpcTransport, JsonRpcTransportFactory, type Client } from "@a2a-js/sdk/client";
import { ApiError, describeError, isApiError } from "../../errors";
import { obj, str } from "../shared/values";
import type { A2aCardPreview } from "@/lib/api";
import { detectProfile, fetchAgentCard, jsonRpcUrl, summarizeCard, type AgentProfile } from "./card";

/** How long one JSON-RPC call (not a stream) may take. */
export const CALL_TIMEOUT_MS = 30_000;

/** The agent answered HTTP 401 or 403: the token is missing, wrong or revoked. */
export class A2aAuthError extends Error {
  constructor(readonly status: number) {
    super(`The agent refused the token (HTTP ${status})`);
    this.name = "A2aAuthError";
  }
}

/** A JSON-RPC error as the agent sent it. */
export interface RpcFailure {
  code: number;
  message: string;
  /** opencode-a2a's `error.data.type` (SESSION_NOT_FOUND, INTERRUPT_REQUEST_EXPIRED …). */
  type?: string;
  data: Record<string, unknown>;
}

/**
 * The JSON-RPC error inside an error the SDK threw: its transport errors carry the response
 * (`errorResponse`), stream errors carry it as their `cause`.
 */
export function rpcFailure(err: unknown): RpcFailure | undefined {
  for (let e: unknown = err, i = 0; e && i < 4; e = (e as { cause?: unknown }).cause, i++) {
    const res = obj((e as { errorResponse?: unknown }).errorResponse);
    const error = obj(res.error);
    if (typeof error.code === "number") {
      const data = obj(error.data);
      const type = str(data.type);
      return { code: error.code, message: str(error.message) ?? "", data, ...(type ? { type } : {}) };
    }
  }
  return undefined;
}

export function isAuthError(err: unknown): err is A2aAuthError {
  for (let e: unknown = err, i = 0; e && i < 4; e = (e as { cause?: unknown }).cause, i++) if (e instanceof A2aAuthError) return true;
  return false;
}

/** The task is unknown to the agent (A2A `TaskNotFoundError`, -32001 without a business type). */
export function isTaskNotFound(err: unknown): boolean {
  const f = rpcFailure(err);
  return f !== undefined && f.code === -32001 && (f.type === undefined || f.type === "TASK_NOT_FOUND");
}

/**
 * An error of the agent as the console's error: switched on opencode-a2a's `error.data.type` when
 * there is one (its codes overlap A2A's: -32002 is "upstream unreachable" there and "task not
 * cancelable" in A2A), else on the A2A code.
 */
export function mapA2aError(err: unknown, what: string, label: string): ApiError {
  if (isApiError(err)) return err;
  if (isAuthError(err)) return ApiError.upstream(`${label} refused the console's token (check the token in the backend's settings)`);
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
    case "METHOD_NOT_SUPPORTED":
    case "METHOD_DISABLED":
      return ApiError.conflict(say);
    case "UPSTREAM_UNREACHABLE":
      return ApiError.down(say);
    case "UPSTREAM_HTTP_ERROR":
    case "UPSTREAM_PAYLOAD_ERROR":
      return ApiError.upstream(say, { type: f.type, ...(f.data.upstream_status !== undefined ? { upstreamStatus: f.data.upstream_status } : {}) });
    default:
      break;
  }
  if (f.code === -32602) return ApiError.badRequest(say, f.type ? { type: f.type } : undefined);
  if (f.code === -32001) return ApiError.notFound(say);
  if (f.code === -32002 || f.code === -32004 || f.code === -32601) return ApiError.conflict(say);
  return ApiError.upstream(say, { code: f.code, ...(f.type ? { type: f.type } : {}) });
}

/**
 * One connection to an A2A agent: its card, an `@a2a-js/sdk` client on the JSON-RPC transport (the
 * only dialect that carries opencode-a2a's extension methods; the card's HTTP+JSON preference is
 * ignored), and the bearer token added to every request on the server side. A 401/403 answer
 * surfaces as `A2aAuthError`.
 */
export class A2aConnection {
  readonly card: AgentCard;
  readonly profile: AgentProfile;
  private client: Client;
  private transport: JsonRpcTransport;
  private ids = 1;

  private constructor(card: AgentCard, client: Client, transport: JsonRpcTransport) {
    this.card = card;
    this.profile = detectProfile(card);
    this.client = client;
    this.transport = transport;
  }

  /** Reads the card at `url` and makes a client for it. */
  static async open(url: string, token: string | undefined): Promise<A2aConnection> {
    const fetchImpl = authFetch(token);
    const card = await fetchAgentCard(url, fetchImpl);
    const endpoint = endpointFor(url, card);
    const factory = new ClientFactory({ transports: [new JsonRpcTransportFactory({ fetchImpl })], preferredTransports: ["JSONRPC"] });
    const client = await factory.createFromAgentCard({ ...card, url: endpoint, preferredTransport: "JSONRPC", additionalInterfaces: [] });
    return new A2aConnection({ ...card, url: endpoint }, client, new JsonRpcTransport({ endpoint, fetchImpl }));
  }

  get streaming(): boolean {
    return this.profile.streaming;
  }

  /** `message/stream` (or `message/send` for an agent that does not stream, through the SDK). */
  stream(params: MessageSendParams, signal: AbortSignal) {
    return this.client.sendMessageStream(params, { signal });
  }

  /** `message/send` without blocking: the task comes back at once, then it is polled with `tasks/get`. */
  send(params: MessageSendParams, signal: AbortSignal): Promise<Message | Task> {
    return this.client.sendMessage({ ...params, configuration: { ...params.configuration, blocking: false } }, { signal: AbortSignal.any([signal, AbortSignal.timeout(CALL_TIMEOUT_MS)]) });
  }

  resubscribe(taskId: string, signal: AbortSignal) {
    return this.client.resubscribeTask({ id: taskId }, { signal });
  }

  getTask(taskId: string): Promise<Task> {
    return this.client.getTask({ id: taskId, historyLength: 0 }, { signal: AbortSignal.timeout(CALL_TIMEOUT_MS) });
  }

  cancelTask(taskId: string): Promise<Task> {
    return this.client.cancelTask({ id: taskId }, { signal: AbortSignal.timeout(CALL_TIMEOUT_MS) });
  }

  /** An extension method (`opencode.*`, `a2a.interrupt.*`): its result, or the SDK's error. */
  async call(method: string, params: Record<string, unknown>): Promise<unknown> {
    const res: unknown = await this.transport.callExtensionMethod(method, params, this.ids++, { signal: AbortSignal.timeout(CALL_TIMEOUT_MS) });
    return obj(res).result;
  }

  /**
   * Checks that the token is accepted with a cheap authenticated call: opencode-a2a's session list,
   * else `tasks/get` of a task that does not exist (any JSON-RPC answer means the token passed).
   */
  async checkToken(): Promise<void> {
    try {
      if (this.profile.kind === "opencode") await this.call("opencode.sessions.list", { limit: 1 });
      else await this.getTask("switchboard-token-check");
    } catch (err) {
      if (isAuthError(err) || !rpcFailure(err)) throw err;
    }
  }
}

/**
 * The JSON-RPC endpoint to use: the card's, when it is on the origin the user configured; else the
 * configured URL itself. The token is only ever sent to that origin — a card cannot redirect it
 * elsewhere (and opencode-a2a's default public URL, 127.0.0.1:8000, is often not where it is reached).
 */
export function endpointFor(configured: string, card: AgentCard): string {
  const base = new URL(configured);
  const fromCard = jsonRpcUrl(card);
  try {
    const u = new URL(fromCard);
    if (u.origin === base.origin && /^https?:$/.test(u.protocol)) return u.toString();
  } catch {
    // not a URL: use the configured one
  }
  base.pathname = base.pathname.replace(/\/\.well-known\/[^/]*$/, "/").replace(/\/[^/]*\.json$/, "/");
  base.search = "";
  base.hash = "";
  return base.toString();
}

/** `fetch` with the bearer token (server side only) that turns 401/403 into `A2aAuthError`. */
export function authFetch(token: string | undefined): typeof fetch {
  const base = token
    ? createAuthenticatingFetchWithRetry(fetch, { headers: async () => ({ Authorization: `Bearer ${token}` }), shouldRetryWithHeaders: async () => undefined })
    : fetch;
  return async (input, init) => {
    const res = await base(input, init);
    if (res.status === 401 || res.status === 403) {
      await res.body?.cancel().catch(() => undefined);
      throw new A2aAuthError(res.status);
    }
    return res;
  };
}

/**
 * Reads an agent's card (server side) and tries the token, for the settings page to show before the
 * agent is saved (`POST /api/a2a/card`): the card's summary and whether the token was accepted.
 * The token is used for the one check and never returned.
 */
export async function previewAgent(url: string, token: string | undefined): Promise<A2aCardPreview> {
  const conn = await A2aConnection.open(url, token);
  const card = summarizeCard(conn.card);
  try {
    await conn.checkToken();
  } catch (err) {
    if (isAuthError(err)) return { card, token: token ? "refused" : "required" };
    throw mapA2aError(err, "be reached", card.name);
  }
  return { card, token: token ? "accepted" : "none" };
}
