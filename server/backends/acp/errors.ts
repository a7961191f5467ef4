import "server-only";
import path from "node:path";
import { RequestError, type AuthMethod } from "@agentclientprotocol/sdk";
import { ApiError, describeError, isApiError } from "../../errors";

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

/** How to log in, from the agent's `authMethods` (with the terminal command where it names one). */
export function authHelp(methods: AuthMethod[]): string {
  const ways = methods.map((m) => {
    const meta = (m as { _meta?: Record<string, unknown> | null })._meta;
    const term = meta?.["terminal-auth"] as { command?: string; args?: string[] } | undefined;
    const line = term?.command ? [path.basename(term.command), ...(term.args ?? [])].join(" ") : "";
    const cmd = line && !(m.description ?? "").includes(line) ? ` (\`${line}\`)` : "";
    return `${m.name}${m.description ? `: ${m.description}` : ""}${cmd}`;
  });
  return ways.length ? `Authentication required. ${ways.join("; ")}` : "Authentication required";
}

/**
 * Maps an agent error to the console's error shape. "Authentication required" (-32000) calls
 * `onAuthRequired` with the login help, so the backend shows as auth-required.
 */
export function mapAcpError(err: unknown, what: string, ctx: { label: string; authMethods: AuthMethod[]; onAuthRequired(help: string): void }): ApiError {
  if (isApiError(err)) return err;
  const code = rpcCode(err);
  const msg = describeError(err);
  if (code === -32000 || /authentication required/i.test(msg)) {
    const help = authHelp(ctx.authMethods);
    ctx.onAuthRequired(help);
    return ApiError.down(`${ctx.label} needs a login. ${help}`);
  }
  if (code === -32002) return ApiError.notFound(msg);
  if (code === -32602) return ApiError.badRequest(`${ctx.label} rejected ${what}: ${msg}`);
  if (code === undefined) return ApiError.down(`${ctx.label} is not reachable: ${msg}`);
  return ApiError.upstream(`${ctx.label} could not ${what}: ${msg}`);
}
