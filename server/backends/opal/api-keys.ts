import "server-only";
import { registerSecret } from "../../redaction/redact";
import { ApiError } from "../../errors";
import type { LiveStore } from "../../store/store";
import { obj } from "../shared/values";
import type { OpalContext } from "./context";

/**
 * The API keys given to Opal, kept in the store (sealed at rest, server/backends/stored-secrets.ts)
 * only so that every replica removes them from shares and exports: Opal itself keeps the key.
 */
export const opalKeysKey = (backendId: string) => `opal-keys:${backendId}`;

function keepKey(store: LiveStore, backendId: string, provider: string, apiKey: string): void {
  let kept: Record<string, string> = {};
  try {
    const parsed: unknown = JSON.parse(store.getMeta(opalKeysKey(backendId)) ?? "{}");
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed))
      kept = Object.fromEntries(Object.entries(parsed).filter((e): e is [string, string] => typeof e[1] === "string"));
  } catch {
    // a malformed row is replaced
  }
  store.setMeta(opalKeysKey(backendId), JSON.stringify({ ...kept, [provider]: apiKey }));
}

/** The backend is removed: the keys kept for redaction go. */
export function forgetKeys(store: LiveStore, backendId: string): void {
  if (store.getMeta(opalKeysKey(backendId)) !== undefined) store.setMeta(opalKeysKey(backendId), "{}");
}

/**
 * An API-key provider (`auth/set_key`: Opal keeps the key in its settings and its environment).
 * A device flow in progress holds Opal's RPC loop (`auth/poll`), so the server is restarted
 * without one first. The key is removed from shares, exports and error messages from now on, on
 * every replica (it is kept in the store for that).
 */
export async function setApiKey(ctx: OpalContext, provider: string, apiKey: string): Promise<void> {
  registerSecret(apiKey);
  const auth = ctx.auth;
  const held = auth.polling || auth.loggingIn ? ctx.proc.current?.gen : undefined;
  if (held !== undefined) {
    auth.keyFlow = true;
    ctx.proc.restart();
  }
  try {
    let c = await ctx.proc.whenReady(60_000);
    // The server that held the loop is going: wait for its successor.
    for (
      const deadline = Date.now() + 60_000;
      held !== undefined && c.gen === held;
      c = await ctx.proc.whenReady(60_000)
    ) {
      if (Date.now() > deadline) throw ApiError.down(`${ctx.opts.label} did not come back after its restart`);
      await new Promise((r) => setTimeout(r, 100));
    }
    try {
      await c.conn.request("auth/set_key", { provider, api_key: apiKey }, { timeoutMs: 30_000 });
    } catch (err) {
      throw ctx.mapError(err, `set the ${provider} API key`);
    }
    keepKey(ctx.opts.store, ctx.id, provider, apiKey);
    const status = obj(await c.conn.request("auth/status", {}, { timeoutMs: 30_000 }).catch(() => ({})));
    auth.readProviders(status);
    if (status.authenticated === true || auth.providers?.find((p) => p.id === provider)?.ready) auth.note = undefined;
    ctx.setStatus("ready");
    ctx.shell.changed();
  } finally {
    auth.keyFlow = false;
  }
}
