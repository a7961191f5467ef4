import "server-only";
import http from "node:http";

/**
 * A hook on every request this process's HTTP servers receive (Next's, under `next start`), run
 * before their request listeners, in the order the hooks were added. A hook that returns true took
 * the request; `toNext` hands it to the listeners later (skipping the hooks), for one that took it
 * and then found it should not answer it after all.
 */
export type ServerRequestHook = (req: http.IncomingMessage, res: http.ServerResponse, toNext: () => void) => boolean;

// One list per process, on globalThis like the app: each Next bundle has its own copy of this module.
const g = globalThis as typeof globalThis & { __switchboardServerHooks?: ServerRequestHook[] };

/** Adds a hook (instrumentation.ts: the peer-address stamp, then the streams served before Next). */
export function onServerRequest(hook: ServerRequestHook): void {
  if (g.__switchboardServerHooks) {
    if (!g.__switchboardServerHooks.includes(hook)) g.__switchboardServerHooks.push(hook);
    return;
  }
  const hooks: ServerRequestHook[] = [hook];
  g.__switchboardServerHooks = hooks;
  const proto = http.Server.prototype as unknown as { emit: (event: string | symbol, ...args: unknown[]) => boolean };
  const emit = proto.emit;
  proto.emit = function (this: http.Server, event: string | symbol, ...args: unknown[]): boolean {
    if (event === "request") {
      const req = args[0] as http.IncomingMessage;
      const res = args[1] as http.ServerResponse;
      const toNext = () => void emit.call(this, event, ...args);
      for (const hook of hooks) if (hook(req, res, toNext)) return true;
    }
    return emit.call(this, event, ...args);
  };
}
