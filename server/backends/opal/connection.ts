import "server-only";
import { describeError } from "../../errors";
import { log } from "../../log";
import type { SupervisedProcess } from "../../processes/supervisor";
import { ndjsonFraming } from "../shared/framing";
import { JsonRpcPeer } from "../shared/json-rpc";
import { obj, str } from "../shared/values";
import type { OpalContext } from "./context";
import { OPAL_REQUESTS, type OpalRequest } from "./requests";

/** Where a connection's `agent/event` notifications and `client/*` requests go. */
export interface OpalHandlers {
  event(gen: number, params: unknown): void;
  request(gen: number, method: OpalRequest, params: unknown, signal: AbortSignal): Promise<unknown>;
}

/** JSON-RPC over NDJSON on a fresh `opal-server` process's stdio. */
export function connect(ctx: OpalContext, p: SupervisedProcess, on: OpalHandlers): JsonRpcPeer {
  const gen = p.generation;
  const peer = new JsonRpcPeer({
    readable: p.stdout,
    writable: p.stdin,
    framing: ndjsonFraming(),
    timeoutMs: 60_000,
    onSkip: (reason, preview) => ctx.proc.skipped(reason, preview),
  });
  peer.onNotification("agent/event", (params) => on.event(gen, params));
  for (const m of OPAL_REQUESTS) peer.onRequest(m, (params, rc) => on.request(gen, m, params, rc.signal));
  // The refactor branch's merged request (`client/request {kind}`), answered the same way.
  peer.onRequest("client/request", (params, rc) => {
    const kind = str(obj(params).kind);
    const m: OpalRequest =
      kind === "confirm" ? "client/confirm" : kind === "input" ? "client/input" : "client/ask_user";
    return on.request(gen, m, params, rc.signal);
  });
  void peer.closed.then(() => ctx.proc.connectionClosed(gen));
  return peer;
}

/** `opal/version`, then `auth/status` (a missing login starts the device flow). */
export async function handshake(ctx: OpalContext, peer: JsonRpcPeer) {
  const v = obj(await peer.request("opal/version", {}, { timeoutMs: 30_000 }));
  ctx.version =
    [str(v.server_version), str(v.protocol_version) ? `protocol ${str(v.protocol_version)}` : undefined]
      .filter(Boolean)
      .join(", ") || undefined;
  const auth = obj(await peer.request("auth/status", {}, { timeoutMs: 30_000 }));
  ctx.auth.handshake(auth, peer);
  for (const rt of ctx.runtimes.values()) rt.gen = undefined;
  log.info("Opal ready", { backend: ctx.id, version: ctx.version, authenticated: auth.authenticated === true });
}

/**
 * `opal/ping`: a server that does not answer is hung (its RPC loop is one process) and is killed;
 * the supervisor restarts it. Skipped while a request legitimately holds the loop (`auth/poll`,
 * `session/compact`).
 */
export async function healthCheck(ctx: OpalContext) {
  const c = ctx.proc.current;
  if (!c || ctx.auth.polling || ctx.blocking > 0 || c.conn.isClosed) return;
  try {
    await c.conn.request("opal/ping", {}, { timeoutMs: ctx.opts.health?.timeoutMs ?? 10_000 });
  } catch (err) {
    const now = ctx.proc.current;
    if (now?.gen !== c.gen || c.conn.isClosed || ctx.auth.polling || ctx.blocking > 0) return;
    log.warn("opal-server did not answer opal/ping: killing it (the supervisor restarts it)", {
      backend: ctx.id,
      error: describeError(err),
    });
    ctx.proc.kill("SIGKILL");
  }
}
