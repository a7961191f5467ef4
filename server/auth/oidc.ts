import "server-only";
import { createHmac, timingSafeEqual } from "node:crypto";
import * as oidc from "openid-client";
import { type Person, type Role, ROLES } from "@/lib/people";
import { ApiError, describeError } from "../errors";
import { log } from "../log";
import { safeNextPath } from "./policy";
import { registerSecret } from "../redaction/redact";

/**
 * Sign-in with OpenID Connect (docs/people.md), on `openid-client`: the authorization code flow with
 * PKCE (S256), `state` and `nonce`; the library checks the ID token (signature, issuer, audience,
 * expiry, nonce). What the browser must bring back — state, nonce, the PKCE verifier, where to go
 * next — travels in a short-lived cookie signed with the console's key, so any replica can finish a
 * sign-in another one started.
 */

type Env = Readonly<Record<string, string | undefined>>;

export interface OidcConfig {
  issuer: URL;
  clientId: string;
  clientSecret: string;
  /** The console's own external URL, without a trailing slash. */
  publicUrl: string;
  /** A claim name, or a dotted path into the claims (`realm_access.roles`). */
  roleClaim: string;
  /** Shown on the login page: "Sign in with <name>". */
  providerName: string;
}

/** A wrong OIDC setting: its message is the one sentence the console stops with. */
export class OidcConfigError extends Error {
  override name = "OidcConfigError";
}

function httpUrl(name: string, value: string): URL {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    throw new OidcConfigError(`${name} is not a URL: ${value}`);
  }
  if (u.protocol !== "https:" && u.protocol !== "http:") throw new OidcConfigError(`${name} must be an https URL`);
  if (u.protocol === "http:" && !["localhost", "127.0.0.1", "[::1]"].includes(u.hostname))
    throw new OidcConfigError(`${name} must be an https URL (plain http only on localhost)`);
  if (u.search || u.hash) throw new OidcConfigError(`${name} must not carry a query or fragment`);
  return u;
}

/** The OIDC settings, or undefined when sign-in with OIDC is not set up (`SWITCHBOARD_OIDC_ISSUER` unset). */
export function readOidcConfig(env: Env = process.env): OidcConfig | undefined {
  const issuer = env.SWITCHBOARD_OIDC_ISSUER?.trim();
  const clientId = env.SWITCHBOARD_OIDC_CLIENT_ID?.trim();
  const clientSecret = env.SWITCHBOARD_OIDC_CLIENT_SECRET?.trim();
  const publicUrl = env.SWITCHBOARD_PUBLIC_URL?.trim();
  if (!issuer) {
    if (clientId || clientSecret)
      throw new OidcConfigError("SWITCHBOARD_OIDC_CLIENT_ID is set but SWITCHBOARD_OIDC_ISSUER is not");
    return undefined;
  }
  const issuerUrl = httpUrl("SWITCHBOARD_OIDC_ISSUER", issuer);
  if (!clientId) throw new OidcConfigError("SWITCHBOARD_OIDC_ISSUER is set but SWITCHBOARD_OIDC_CLIENT_ID is not");
  if (!clientSecret)
    throw new OidcConfigError("SWITCHBOARD_OIDC_ISSUER is set but SWITCHBOARD_OIDC_CLIENT_SECRET is not");
  if (!publicUrl)
    throw new OidcConfigError(
      "SWITCHBOARD_OIDC_ISSUER is set but SWITCHBOARD_PUBLIC_URL (the console's own address) is not",
    );
  const pub = httpUrl("SWITCHBOARD_PUBLIC_URL", publicUrl);
  const roleClaim = env.SWITCHBOARD_OIDC_ROLE_CLAIM?.trim() || "groups";
  if (!/^[\w:/-]+(\.[\w:/-]+)*$/.test(roleClaim))
    throw new OidcConfigError(`SWITCHBOARD_OIDC_ROLE_CLAIM is not a claim name: ${roleClaim}`);
  return {
    issuer: issuerUrl,
    clientId,
    clientSecret,
    publicUrl: pub.href.replace(/\/$/, ""),
    roleClaim,
    providerName: env.SWITCHBOARD_OIDC_NAME?.trim() || issuerUrl.hostname,
  };
}

/** The role a claim's values give: the highest of `switchboard-admin`, `-operator`, `-viewer`; else none. */
export function roleFromClaims(claims: Record<string, unknown>, claimPath: string): Role | undefined {
  let v: unknown = claims;
  for (const key of claimPath.split(".")) {
    v = v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>)[key] : undefined;
  }
  const values = Array.isArray(v) ? v : typeof v === "string" ? v.split(/[\s,]+/) : [];
  let best: Role | undefined;
  for (const role of ROLES) if (values.includes(`switchboard-${role}`)) best = role;
  return best;
}

/** What the browser keeps between the redirect to the provider and its return. */
export interface Transaction {
  state: string;
  nonce: string;
  verifier: string;
  next: string;
  /** Expiry, epoch ms. */
  exp: number;
}

export const OIDC_COOKIE = "sb_oidc";
const TX_TTL_MS = 10 * 60_000;

function txSign(key: Buffer, payload: string): string {
  return createHmac("sha256", key).update(`oidc-tx.${payload}`).digest("base64url");
}

export function sealTransaction(key: Buffer, tx: Transaction): string {
  const payload = Buffer.from(JSON.stringify(tx)).toString("base64url");
  return `${payload}.${txSign(key, payload)}`;
}

function openTx(key: Buffer, value: string | undefined, now: number): Transaction | undefined {
  if (!value || value.length > 4000) return undefined;
  const [payload, sig] = value.split(".");
  if (!payload || !sig) return undefined;
  const expected = Buffer.from(txSign(key, payload), "base64url");
  const given = Buffer.from(sig, "base64url");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  try {
    const tx = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as Transaction;
    if (typeof tx.state !== "string" || typeof tx.nonce !== "string" || typeof tx.verifier !== "string")
      return undefined;
    return tx.exp > now ? tx : undefined;
  } catch {
    return undefined;
  }
}

/**
 * True for a `SignInRefused` from any bundle: the sign-in object is made once per process (kept on
 * globalThis) by whichever bundle asked first, so `instanceof` in a route is not reliable.
 */
export function isSignInRefused(err: unknown): err is SignInRefused {
  return err instanceof Error && err.name === "SignInRefused" && "status" in err;
}

/** A sign-in that ended without a session: who (when known) and why, for the page and the audit log. */
export class SignInRefused extends Error {
  override name = "SignInRefused";
  constructor(
    message: string,
    readonly status: 400 | 403 | 502,
    readonly person?: Person,
  ) {
    super(message);
  }
}

export interface SignedIn {
  user: Person;
  role: Role;
  next: string;
}

/** How openid-client reaches the provider (its `customFetch`). */
export type ProviderFetch = NonNullable<oidc.DiscoveryRequestOptions[typeof oidc.customFetch]>;

/** One provider, discovered on first use (again after a failure). */
export class OidcSignIn {
  private discovered: Promise<oidc.Configuration> | undefined;

  constructor(
    readonly config: OidcConfig,
    private readonly key: Buffer,
    /** For tests: how to reach the provider (a test CA); the default is the global `fetch`. */
    private readonly fetchImpl?: ProviderFetch,
  ) {
    registerSecret(config.clientSecret);
  }

  get redirectUri(): string {
    return `${this.config.publicUrl}/api/auth/oidc/callback`;
  }

  private provider(): Promise<oidc.Configuration> {
    this.discovered ??= oidc
      .discovery(
        this.config.issuer,
        this.config.clientId,
        this.config.clientSecret,
        undefined,
        this.fetchImpl ? { [oidc.customFetch]: this.fetchImpl, timeout: 10 } : { timeout: 10 },
      )
      .then((c) => {
        if (this.fetchImpl) c[oidc.customFetch] = this.fetchImpl;
        // The ID token's signature is checked against the provider's keys too (by default the
        // library trusts the TLS channel for a token from the token endpoint).
        oidc.enableNonRepudiationChecks(c);
        return c;
      })
      .catch((err: unknown) => {
        this.discovered = undefined;
        log.warn("OIDC discovery failed", { issuer: this.config.issuer.href, error: describeError(err) });
        throw new ApiError(
          "upstream_failed",
          `The identity provider at ${this.config.issuer.href} did not answer; try again later`,
        );
      });
    return this.discovered;
  }

  /** Where to send the browser, and the cookie that remembers this attempt. */
  async start(next: string | null): Promise<{ location: string; cookieValue: string }> {
    const config = await this.provider();
    const tx: Transaction = {
      state: oidc.randomState(),
      nonce: oidc.randomNonce(),
      verifier: oidc.randomPKCECodeVerifier(),
      next: safeNextPath(next),
      exp: Date.now() + TX_TTL_MS,
    };
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: this.redirectUri,
      scope: "openid profile email",
      response_type: "code",
      code_challenge: await oidc.calculatePKCECodeChallenge(tx.verifier),
      code_challenge_method: "S256",
      state: tx.state,
      nonce: tx.nonce,
    });
    return { location: url.href, cookieValue: sealTransaction(this.key, tx) };
  }

  /**
   * Finishes a sign-in at the callback: checks the returned state against the cookie's, trades the
   * code (with the PKCE verifier) for tokens, verifies the ID token and its nonce, reads the role.
   * Throws `SignInRefused` with a sentence for the person.
   */
  async finish(callbackSearch: string, txCookie: string | undefined): Promise<SignedIn> {
    const tx = openTx(this.key, txCookie, Date.now());
    if (!tx) throw new SignInRefused("This sign-in expired or was not started here; start again", 400);
    const params = new URLSearchParams(callbackSearch);
    const error = params.get("error");
    if (error)
      throw new SignInRefused(
        `The identity provider refused the sign-in: ${(params.get("error_description") ?? error).slice(0, 200)}`,
        400,
      );
    if (params.get("state") !== tx.state)
      throw new SignInRefused("The sign-in's state does not match; start again", 400);
    const config = await this.provider();
    let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
    try {
      tokens = await oidc.authorizationCodeGrant(config, new URL(`${this.redirectUri}?${params}`), {
        pkceCodeVerifier: tx.verifier,
        expectedState: tx.state,
        expectedNonce: tx.nonce,
        idTokenExpected: true,
      });
    } catch (err) {
      log.warn("OIDC sign-in refused", { error: describeError(err) });
      throw new SignInRefused(`The sign-in could not be verified: ${oidcReason(err)}`, 400);
    }
    const claims = tokens.claims();
    if (!claims) throw new SignInRefused("The identity provider sent no ID token", 400);
    let all: Record<string, unknown> = { ...claims };
    if (roleFromClaims(all, this.config.roleClaim) === undefined && config.serverMetadata().userinfo_endpoint) {
      try {
        all = { ...(await oidc.fetchUserInfo(config, tokens.access_token, claims.sub)), ...claims };
      } catch (err) {
        log.warn("OIDC userinfo failed", { error: describeError(err) });
      }
    }
    const str = (v: unknown) => (typeof v === "string" ? v.slice(0, 300) : "");
    const user: Person = {
      id: claims.sub,
      name: str(all.name) || str(all.preferred_username) || str(all.email) || claims.sub,
      email: str(all.email),
    };
    const role = roleFromClaims(all, this.config.roleClaim);
    if (!role)
      throw new SignInRefused(
        `${user.name} has no Switchboard role: the identity provider's "${this.config.roleClaim}" claim holds none of switchboard-admin, switchboard-operator or switchboard-viewer. Ask an administrator to add you to one of those groups.`,
        403,
        user,
      );
    return { user, role, next: tx.next };
  }

  /** The provider's end-session address to send the browser to after a logout, when it has one. */
  async endSessionUrl(): Promise<string | undefined> {
    try {
      const config = await this.provider();
      if (!config.serverMetadata().end_session_endpoint) return undefined;
      return oidc.buildEndSessionUrl(config, { post_logout_redirect_uri: `${this.config.publicUrl}/login` }).href;
    } catch {
      return undefined;
    }
  }
}

/**
 * A short reason from openid-client's error, never a stack: the provider's error code, or the
 * library's message and the check that failed (its `cause`: "unexpected ID Token "nonce" claim value").
 */
function oidcReason(err: unknown): string {
  const parts: string[] = [];
  let e: unknown = err;
  for (let depth = 0; e && typeof e === "object" && depth < 4; depth++) {
    const o = e as { cause?: unknown; message?: unknown; error?: unknown; error_description?: unknown };
    if (typeof o.error === "string") {
      parts.push(
        `${o.error}${typeof o.error_description === "string" ? ` (${o.error_description.slice(0, 200)})` : ""}`,
      );
      break;
    }
    if (typeof o.message === "string" && o.message) parts.push(o.message.slice(0, 200));
    e = o.cause;
  }
  return parts.length ? parts.join(": ") : "unknown error";
}

const g = globalThis as typeof globalThis & { __switchboardOidc?: OidcSignIn | null };

/** The console's OIDC sign-in from its environment, or undefined when it is not set up. */
export function oidcSignIn(key: Buffer): OidcSignIn | undefined {
  if (g.__switchboardOidc === undefined) {
    const config = readOidcConfig();
    g.__switchboardOidc = config ? new OidcSignIn(config, key) : null;
  }
  return g.__switchboardOidc ?? undefined;
}

/** The transaction cookie (`SameSite=Lax`: the provider's redirect back is a cross-site navigation). */
export function oidcCookie(value: string, secure: boolean): string {
  return [
    `${OIDC_COOKIE}=${value}`,
    "Path=/api/auth/oidc",
    "HttpOnly",
    "SameSite=Lax",
    `Max-Age=${TX_TTL_MS / 1000}`,
    ...(secure ? ["Secure"] : []),
  ].join("; ");
}

export function clearedOidcCookie(secure: boolean): string {
  return [
    `${OIDC_COOKIE}=`,
    "Path=/api/auth/oidc",
    "HttpOnly",
    "SameSite=Lax",
    "Max-Age=0",
    ...(secure ? ["Secure"] : []),
  ].join("; ");
}
