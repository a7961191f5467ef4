import "server-only";
import { RequestError } from "@agentclientprotocol/sdk";
import { ApiError, describeError, isApiError } from "../../errors";
import { authHelp, type AuthMethodInfo } from "./auth";

/** The JSON-RPC error code of an agent's error, if it has one (a closed connection has none). */
export function rpcCode(err: unknown): number | undefined {
  if (err instanceof RequestError) return err.code;
  const c = (err as { code?: unknown } | null)?.code;
  return typeof c === "number" ? c : undefined;
}

/** `session/load` of a session the agent already has open (Copilot answers so). */
export function isAlreadyLoaded(err: unknown): boolean {
  return rpcCode(err) === -32602 && /already loaded/i.test(describeError(err));
}

/**
 * The detail an agent put in its error's `data` (JSON-RPC): `data.details` (the SDK's internal
 * errors, Claude Code), `data.message`, a plain string, or the object itself (shortened).
 */
export function errorDetails(err: unknown): string | undefined {
  const data: unknown = err instanceof RequestError ? err.data : (err as { data?: unknown } | null)?.data;
  if (data === undefined || data === null) return undefined;
  if (typeof data === "string") return data.trim() || undefined;
  if (typeof data !== "object") return String(data);
  const o = data as Record<string, unknown>;
  for (const key of ["details", "message", "error"]) {
    const v = o[key];
    if (typeof v === "string" && v.trim()) return v.trim();
  }
  const json = JSON.stringify(data);
  return json === "{}" ? undefined : json.slice(0, 500);
}

/** The agent's message with its `data` detail, when the detail adds something. */
export function agentMessage(err: unknown): string {
  const msg = describeError(err);
  const details = errorDetails(err);
  return details && !msg.includes(details) ? `${msg}: ${details}` : msg;
}

/**
 * Maps an agent error to the console's error shape. "Authentication required" (-32000) calls
 * `onAuthRequired` with the login help, so the backend shows as auth-required.
 */
export function mapAcpError(
  err: unknown,
  what: string,
  ctx: { label: string; authMethods: AuthMethodInfo[]; onAuthRequired(help: string): void },
): ApiError {
  if (isApiError(err)) return err;
  const code = rpcCode(err);
  const msg = agentMessage(err);
  if (code === -32000 || /authentication required/i.test(msg)) {
    // The agent's own reason ("Gemini API key is missing…") before the ways to log in.
    const reason = /^authentication required\.?$/i.test(msg.trim()) ? "" : `${msg.trim().replace(/\.?$/, ".")} `;
    const help = `${reason}${authHelp(ctx.authMethods)}`;
    ctx.onAuthRequired(help);
    return ApiError.down(`${ctx.label} needs a login. ${help}`);
  }
  if (code === -32002) return ApiError.notFound(msg);
  if (code === -32602) return ApiError.badRequest(`${ctx.label} rejected ${what}: ${msg}`);
  if (code === undefined) return ApiError.down(`${ctx.label} is not reachable: ${msg}`);
  return ApiError.upstream(`${ctx.label} could not ${what}: ${msg}`);
}
