import { EmptyBody, EmptyQuery } from "@/lib/api";
import { clearedSessionCookie, isHttps, logout, readCookie, SESSION_COOKIE } from "@/server/auth/console-auth";
import { json, readBody, readQuery, route } from "@/server/http";

export const dynamic = "force-dynamic";

/** Ends this browser's session: the cookie is cleared and its value stops working. */
export const POST = route(async (req) => {
  readQuery(req, EmptyQuery);
  await readBody(req, EmptyBody);
  await logout(readCookie(req.headers, SESSION_COOKIE));
  return json(
    { ok: true },
    {
      headers: {
        "set-cookie": clearedSessionCookie({ secure: isHttps(req.url, req.headers) }),
        "cache-control": "no-store",
      },
    },
  );
});
