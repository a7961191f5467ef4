import "server-only";

const html = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c);

/**
 * The page a sign-in that did not end in a session answers with (403 for someone with no role, 400
 * for a sign-in that could not be verified, 502 when the provider does not answer): plain HTML with
 * no script, the reason in words, and the way back to the login page.
 */
export function signInFailedPage(status: number, message: string, headers = new Headers()): Response {
  const title = status === 403 ? "No access to Switchboard" : "Sign-in failed";
  const page = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${html(title)} · Switchboard</title></head>
<body data-testid="sign-in-failed">
<h1>${html(title)}</h1>
<p data-testid="sign-in-failed-reason">${html(message)}</p>
<p><a href="/login">Back to the login page</a></p>
</body></html>`;
  headers.set("content-type", "text/html; charset=utf-8");
  headers.set("cache-control", "no-store");
  return new Response(page, { status, headers });
}

/**
 * The answer of a successful sign-in: a page that moves on to `next` by itself. Not a redirect: the
 * browser arrives here from the identity provider, a cross-site navigation, and the console's
 * `SameSite=Strict` cookie would not be sent on a redirect that continues it; a navigation this page
 * starts is the console's own.
 */
export function signedInPage(next: string, headers: Headers): Response {
  const to = html(next);
  const page = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="0;url=${to}">
<title>Signed in · Switchboard</title></head>
<body data-testid="signed-in-page"><p>Signed in. <a href="${to}">Continue to the console</a>.</p></body></html>`;
  headers.set("content-type", "text/html; charset=utf-8");
  headers.set("cache-control", "no-store");
  return new Response(page, { status: 200, headers });
}
