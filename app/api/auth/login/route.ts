import { EmptyQuery, LoginBody } from "@/lib/api";
import { clientAddress } from "@/server/auth/client-address";
import { isHttps, login, sessionCookie } from "@/server/auth/console-auth";
import { json, readBody, readQuery, route } from "@/server/http";

export const dynamic = "force-dynamic";

/** Exchanges the console token for an httpOnly session cookie (rate limited: 429). */
export const POST = route(async (req) => {
  readQuery(req, EmptyQuery);
  const body = await readBody(req, LoginBody, 10_000);
  const { cookieValue, maxAge } = await login(body.token, clientAddress(req.headers));
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
