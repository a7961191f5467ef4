import type { Metadata } from "next";
import { LoginForm } from "@/components/auth/login-form";
import { readOidcConfig } from "@/server/auth/oidc";
import { safeNextPath } from "@/server/auth/policy";

/** The identity provider's name when sign-in with OIDC is set up (a wrong setting already stopped the start). */
function providerName(): string | undefined {
  try {
    return readOidcConfig()?.providerName;
  } catch {
    return undefined;
  }
}

export const metadata: Metadata = { title: "Log in · Switchboard" };

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

/** The console login (public). `?token=` logs in at once; `?next=` is where to go afterwards. */
export default async function LoginPage({ searchParams }: { searchParams: SearchParams }) {
  const sp = await searchParams;
  const next = safeNextPath(typeof sp.next === "string" ? sp.next : undefined);
  return <LoginForm next={next} provider={providerName()} />;
}
