import { z } from "zod";
import { consoleAuth, isHttps } from "@/server/auth/console-auth";
import { oidcCookie, oidcSignIn } from "@/server/auth/oidc";
import { signInFailedPage } from "@/server/auth/sign-in-page";
import { ApiError, isApiError } from "@/server/errors";
import { readQuery, route } from "@/server/http";

export const dynamic = "force-dynamic";

const Query = z.object({ next: z.string().max(2000).optional() }).strict();

/** Starts a sign-in with the identity provider: 302 to its authorization endpoint (docs/people.md). */
export const GET = route(async (req) => {
  const { next } = readQuery(req, Query);
  const signIn = oidcSignIn(consoleAuth().key);
  if (!signIn) throw ApiError.notFound("Sign-in with OpenID Connect is not set up on this console");
  try {
    const { location, cookieValue } = await signIn.start(next ?? null);
    return new Response(null, {
      status: 302,
      headers: {
        location,
        "set-cookie": oidcCookie(cookieValue, isHttps(req.url, req.headers)),
        "cache-control": "no-store",
      },
    });
  } catch (err) {
    if (isApiError(err)) return signInFailedPage(502, err.message);
    throw err;
  }
});
