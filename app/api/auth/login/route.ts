import { EmptyQuery, LoginBody } from "@/lib/api";
import { audit, auditEntry } from "@/server/auth/audit";
import { clientAddress } from "@/server/auth/client-address";
import { isHttps, login, sessionCookie, TOKEN_PRINCIPAL } from "@/server/auth/console-auth";
import { getApp } from "@/server/app";
import { json, readBody, readQuery, route } from "@/server/http";

export const dynamic = "force-dynamic";

/** Exchanges the console token for an httpOnly session cookie (rate limited: 429). Audited as the token's `login`. */
export const POST = route(async (req) => {
  readQuery(req, EmptyQuery);
  const body = await readBody(req, LoginBody, 10_000);
  const { cookieValue, maxAge } = await login(body.token, clientAddress(req.headers));
  getApp(); // the audit log's store
  await audit(auditEntry(TOKEN_PRINCIPAL, "login"));
  return json(
    { ok: true },
    {
      headers: {
        "set-cookie": sessionCookie(cookieValue, { secure: isHttps(req.url, req.headers), maxAge }),
        "cache-control": "no-store",
      },
    },
  );
});
