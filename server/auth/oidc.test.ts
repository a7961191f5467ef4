import { randomBytes } from "node:crypto";
import { decodeJwt, importJWK, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  caFetch,
  OIDC_USERS,
  type OidcProviderServer,
  signInAtProvider,
  startOidcProvider,
} from "../../testkit/oidc-provider";
import { freePort } from "../../testkit/opencode-server";
import { isApiError } from "../errors";
import {
  type OidcConfig,
  OidcSignIn,
  type ProviderFetch,
  readOidcConfig,
  roleFromClaims,
  SignInRefused,
  sealTransaction,
  type Transaction,
} from "./oidc";

/**
 * Sign-in against a real OpenID provider (`oidc-provider`, over HTTPS with a self-signed certificate
 * this process trusts through openid-client's customFetch): each role, the user with none, and the
 * sign-ins that must not succeed.
 */

const PUBLIC_URL = "https://console.example.test";
const REDIRECT = `${PUBLIC_URL}/api/auth/oidc/callback`;
const key = randomBytes(32);
let op: OidcProviderServer;

beforeAll(async () => {
  op = await startOidcProvider({
    redirectUris: [REDIRECT],
    postLogoutRedirectUris: [`${PUBLIC_URL}/login`],
    autoConsent: true,
  });
}, 60_000);
afterAll(async () => {
  await op?.stop();
});

function config(over: Partial<OidcConfig> = {}): OidcConfig {
  return {
    issuer: new URL(op.issuer),
    clientId: op.clientId,
    clientSecret: op.clientSecret,
    publicUrl: PUBLIC_URL,
    roleClaim: "groups",
    providerName: "Test IdP",
    ...over,
  };
}

/** The provider reached through the test CA; `rewrite` may change the token endpoint's answer. */
function fetcher(rewrite?: (body: Record<string, unknown>) => Promise<Record<string, unknown>>): ProviderFetch {
  const base = caFetch(op.ca);
  return (async (url: string, options: { method?: string; headers?: Record<string, string>; body?: unknown }) => {
    const res = await base(url, options);
    if (!rewrite || !url.endsWith("/token") || !res.ok) return res;
    const body = await rewrite((await res.json()) as Record<string, unknown>);
    return new Response(JSON.stringify(body), { status: res.status, headers: res.headers });
  }) as unknown as ProviderFetch;
}

/** Starts a sign-in, logs in at the provider as `login`: the callback's query and the transaction cookie. */
async function throughProvider(signIn: OidcSignIn, login: string) {
  const { location, cookieValue } = await signIn.start("/sessions/x?y=1");
  const back = await signInAtProvider(location, login, op.ca, REDIRECT);
  return { search: back.search, cookieValue, authUrl: new URL(location) };
}

async function refusal(p: Promise<unknown>): Promise<SignInRefused> {
  try {
    await p;
  } catch (err) {
    if (err instanceof SignInRefused) return err;
    throw err;
  }
  throw new Error("the sign-in was not refused");
}

describe("OIDC settings", () => {
  it("is off without an issuer, and a wrong setting is one sentence", () => {
    expect(readOidcConfig({})).toBeUndefined();
    const base = {
      SWITCHBOARD_OIDC_ISSUER: "https://idp.example.test/realms/x",
      SWITCHBOARD_OIDC_CLIENT_ID: "sb",
      SWITCHBOARD_OIDC_CLIENT_SECRET: "s3cret-value",
      SWITCHBOARD_PUBLIC_URL: "https://sb.example.test/",
    };
    expect(readOidcConfig(base)).toMatchObject({
      publicUrl: "https://sb.example.test",
      roleClaim: "groups",
      providerName: "idp.example.test",
    });
    const wrong = (env: Record<string, string | undefined>) => {
      try {
        readOidcConfig(env);
      } catch (err) {
        return (err as Error).message;
      }
      return "accepted";
    };
    expect(wrong({ ...base, SWITCHBOARD_OIDC_CLIENT_SECRET: undefined })).toMatch(
      /SWITCHBOARD_OIDC_CLIENT_SECRET is not/,
    );
    expect(wrong({ ...base, SWITCHBOARD_PUBLIC_URL: undefined })).toMatch(/SWITCHBOARD_PUBLIC_URL/);
    expect(wrong({ ...base, SWITCHBOARD_OIDC_ISSUER: "not a url" })).toMatch(/is not a URL/);
    expect(wrong({ ...base, SWITCHBOARD_OIDC_ISSUER: "http://idp.example.test" })).toMatch(/https/);
    expect(wrong({ SWITCHBOARD_OIDC_CLIENT_ID: "sb" })).toMatch(/SWITCHBOARD_OIDC_ISSUER is not/);
    expect(wrong({ ...base, SWITCHBOARD_OIDC_ROLE_CLAIM: "a b" })).toMatch(/not a claim name/);
  });

  it("reads the highest Switchboard role from a claim, a nested one, or a string", () => {
    expect(roleFromClaims({ groups: ["switchboard-viewer", "switchboard-operator"] }, "groups")).toBe("operator");
    expect(roleFromClaims({ realm_access: { roles: ["switchboard-admin"] } }, "realm_access.roles")).toBe("admin");
    expect(roleFromClaims({ roles: "x switchboard-viewer" }, "roles")).toBe("viewer");
    expect(roleFromClaims({ groups: ["staff", "switchboard-admins"] }, "groups")).toBeUndefined();
    expect(roleFromClaims({}, "groups")).toBeUndefined();
  });
});

describe("OIDC sign-in with a real provider", () => {
  it("signs each person in with their role; PKCE S256, state and nonce are sent", async () => {
    const signIn = new OidcSignIn(config(), key, fetcher());
    for (const [login, role] of [
      ["ada", "admin"],
      ["olga", "operator"],
      ["vic", "viewer"],
    ] as const) {
      const { search, cookieValue, authUrl } = await throughProvider(signIn, login);
      expect(authUrl.searchParams.get("code_challenge_method")).toBe("S256");
      expect(authUrl.searchParams.get("state")).toBeTruthy();
      expect(authUrl.searchParams.get("nonce")).toBeTruthy();
      expect(authUrl.searchParams.get("redirect_uri")).toBe(REDIRECT);
      const done = await signIn.finish(search, cookieValue);
      expect(done).toEqual({
        user: { id: login, name: OIDC_USERS[login]?.name, email: OIDC_USERS[login]?.email },
        role,
        next: "/sessions/x?y=1",
      });
    }
  });

  it("refuses someone with no Switchboard role (403), saying who and why", async () => {
    const signIn = new OidcSignIn(config(), key, fetcher());
    const { search, cookieValue } = await throughProvider(signIn, "nora");
    const err = await refusal(signIn.finish(search, cookieValue));
    expect(err.status).toBe(403);
    expect(err.person).toEqual({ id: "nora", name: "Nora Nobody", email: "nora@example.test" });
    expect(err.message).toMatch(/no Switchboard role.*"groups" claim/);
  });

  it("refuses a forged state, a missing or foreign transaction cookie, and a replayed code", async () => {
    const signIn = new OidcSignIn(config(), key, fetcher());
    const { search, cookieValue } = await throughProvider(signIn, "olga");
    const forged = new URLSearchParams(search);
    forged.set("state", "forged-state");
    expect((await refusal(signIn.finish(`?${forged}`, cookieValue))).message).toMatch(/state does not match/);
    expect((await refusal(signIn.finish(search, undefined))).message).toMatch(/expired or was not started here/);
    const other = new OidcSignIn(config(), randomBytes(32), fetcher());
    expect((await refusal(other.finish(search, cookieValue))).message).toMatch(/not started here/);
    // The first use succeeds; the same code again is refused by the provider.
    await expect(signIn.finish(search, cookieValue)).resolves.toMatchObject({ role: "operator" });
    expect((await refusal(signIn.finish(search, cookieValue))).message).toMatch(/could not be verified: invalid_grant/);
  });

  it("refuses an ID token whose nonce is not this sign-in's", async () => {
    const signIn = new OidcSignIn(config(), key, fetcher());
    const { search, cookieValue } = await throughProvider(signIn, "ada");
    const [payload] = cookieValue.split(".");
    const tx = JSON.parse(Buffer.from(payload ?? "", "base64url").toString("utf8")) as Transaction;
    const swapped = sealTransaction(key, { ...tx, nonce: "another-nonce" });
    expect((await refusal(signIn.finish(search, swapped))).message).toMatch(/could not be verified.*nonce/i);
  });

  /** Signs the provider's ID token again with its own key, with `change` applied to the claims. */
  const resign = (change: (claims: Record<string, unknown>) => Record<string, unknown>) =>
    fetcher(async (body) => {
      const claims = decodeJwt(String(body.id_token));
      const jwk = await importJWK(op.signingKey, "RS256");
      const id_token = await new SignJWT(change({ ...claims }))
        .setProtectedHeader({ alg: "RS256", kid: op.signingKey.kid })
        .sign(jwk);
      return { ...body, id_token };
    });

  it("refuses a tampered, an expired and another audience's ID token", async () => {
    const cases: [string, ProviderFetch, RegExp][] = [
      [
        "tampered",
        fetcher(async (body) => {
          const [h, p, s] = String(body.id_token).split(".");
          const claims = JSON.parse(Buffer.from(p ?? "", "base64url").toString("utf8")) as Record<string, unknown>;
          const raised = Buffer.from(JSON.stringify({ ...claims, sub: "ada" })).toString("base64url");
          return { ...body, id_token: [h, raised, s].join(".") };
        }),
        /signature/i,
      ],
      ["expired", resign((c) => ({ ...c, iat: 1_000_000, exp: 1_000_600 })), /exp/i],
      ["another audience", resign((c) => ({ ...c, aud: "someone-else" })), /aud/i],
    ];
    for (const [what, f, reason] of cases) {
      const signIn = new OidcSignIn(config(), key, f);
      const { search, cookieValue } = await throughProvider(signIn, "vic");
      const err = await refusal(signIn.finish(search, cookieValue));
      expect(err.status, what).toBe(400);
      expect(err.message, what).toMatch(reason);
    }
  });

  it("says so when the issuer does not answer, and offers the provider's end-session address", async () => {
    const port = await freePort();
    const down = new OidcSignIn(config({ issuer: new URL(`https://127.0.0.1:${port}`) }), key, fetcher());
    try {
      await down.start("/");
      throw new Error("started");
    } catch (err) {
      expect(isApiError(err) && err.status).toBe(502);
      expect((err as Error).message).toMatch(/did not answer/);
    }
    const signIn = new OidcSignIn(config(), key, fetcher());
    const end = new URL((await signIn.endSessionUrl()) ?? "");
    expect(end.origin + end.pathname).toBe(`${op.issuer}/session/end`);
    expect(end.searchParams.get("post_logout_redirect_uri")).toBe(`${PUBLIC_URL}/login`);
    expect(end.searchParams.get("client_id")).toBe(op.clientId);
  });
});
