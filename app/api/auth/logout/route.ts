import { EmptyBody, EmptyQuery } from "@/lib/api";
import { audit, auditEntry } from "@/server/auth/audit";
import {
  clearedSessionCookie,
  consoleAuth,
  isHttps,
  logout,
  principalOf,
  readCookie,
  SESSION_COOKIE,
} from "@/server/auth/console-auth";
import { oidcSignIn } from "@/server/auth/oidc";
import { getApp } from "@/server/app";
import { json, readBody, readQuery, route } from "@/server/http";

export const dynamic = "force-dynamic";

/**
 * Ends this browser's session: the cookie is cleared and its value stops working, on every replica.
 * Someone signed in with OIDC also gets `endSessionUrl`, the provider's end-session address, when it
 * offers one (the browser goes there next).
 */
export const POST = route(async (req) => {
  readQuery(req, EmptyQuery);
  await readBody(req, EmptyBody);
  const cookie = readCookie(req.headers, SESSION_COOKIE);
  const who = principalOf(req.headers, cookie);
  const ended = await logout(cookie);
  if (who && ended) {
    getApp(); // the audit log's store
    await audit(auditEntry(who, "logout"));
  }
  const endSessionUrl = ended?.person ? await oidcSignIn(consoleAuth().key)?.endSessionUrl() : undefined;
  return json(
    { ok: true, ...(endSessionUrl ? { endSessionUrl } : {}) },
    {
      headers: {
        "set-cookie": clearedSessionCookie({ secure: isHttps(req.url, req.headers) }),
        "cache-control": "no-store",
      },
    },
  );
});
