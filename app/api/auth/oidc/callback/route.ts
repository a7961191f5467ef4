import { actorOf, audit, auditEntry } from "@/server/auth/audit";
import { consoleAuth, isHttps, personSession, readCookie, sessionCookie } from "@/server/auth/console-auth";
import { clearedOidcCookie, isSignInRefused, OIDC_COOKIE, oidcSignIn } from "@/server/auth/oidc";
import { signedInPage, signInFailedPage } from "@/server/auth/sign-in-page";
import { getApp } from "@/server/app";
import { ApiError, isApiError } from "@/server/errors";
import { route } from "@/server/http";

export const dynamic = "force-dynamic";

/**
 * Where the identity provider sends the browser back: the code is traded and the ID token verified
 * (server/auth/oidc.ts); someone with a Switchboard role gets the console's session cookie, someone
 * without one a 403 page saying why (audited as `login.refused`).
 */
export const GET = route(async (req) => {
  const signIn = oidcSignIn(consoleAuth().key);
  if (!signIn) throw ApiError.notFound("Sign-in with OpenID Connect is not set up on this console");
  getApp(); // the audit log's store
  const secure = isHttps(req.url, req.headers);
  const cleared = clearedOidcCookie(secure);
  try {
    const done = await signIn.finish(new URL(req.url).search, readCookie(req.headers, OIDC_COOKIE));
    const { cookieValue, maxAge } = personSession({ user: done.user, role: done.role });
    await audit(
      auditEntry({ user: done.user, role: done.role, via: "oidc" }, "login", { detail: { role: done.role } }),
    );
    const headers = new Headers();
    headers.append("set-cookie", sessionCookie(cookieValue, { secure, maxAge }));
    headers.append("set-cookie", cleared);
    return signedInPage(done.next, headers);
  } catch (err) {
    // Set-Cookie cannot be added to a Response once made: the cleared cookie goes in with the page.
    const headers = new Headers();
    headers.append("set-cookie", cleared);
    if (isSignInRefused(err)) {
      if (err.person)
        await audit({
          at: Date.now(),
          actor: actorOf({ user: err.person, role: "viewer", via: "oidc" }),
          action: "login.refused",
          detail: { reason: err.message },
        });
      return signInFailedPage(err.status, err.message, headers);
    }
    if (isApiError(err)) return signInFailedPage(err.status === 502 ? 502 : 400, err.message, headers);
    throw err;
  }
});
