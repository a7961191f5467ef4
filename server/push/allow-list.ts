import "server-only";

/**
 * The push services a subscription's endpoint may name (docs/push.md, "The allow-list"): the
 * console sends to no address a client chose. By default the public services of the browsers —
 * Chrome and Android (FCM), Firefox (autopush), Edge (WNS) and Safari (Apple) — plus the hosts in
 * `SWITCHBOARD_PUSH_SERVICES` (comma-separated `host[:port]`; without a port, 443).
 */
export const PUSH_SERVICES_VAR = "SWITCHBOARD_PUSH_SERVICES";

export const DEFAULT_PUSH_SERVICES: readonly string[] = [
  "fcm.googleapis.com",
  "android.googleapis.com",
  "updates.push.services.mozilla.com",
  "*.notify.windows.com",
  "*.push.apple.com",
];

interface Entry {
  /** Lowercase host, or `*.suffix` for any subdomain of suffix. */
  host: string;
  port: string;
}

function parseEntry(raw: string): Entry | undefined {
  const v = raw.trim().toLowerCase();
  if (!v) return undefined;
  const m = /^(\*\.)?([a-z0-9.-]+|\[[0-9a-f:.]+\])(?::(\d{1,5}))?$/.exec(v);
  if (!m) return undefined;
  return { host: `${m[1] ?? ""}${m[2]}`, port: m[3] ?? "443" };
}

export function pushServices(env: Readonly<Record<string, string | undefined>> = process.env): Entry[] {
  const extra = (env[PUSH_SERVICES_VAR] ?? "").split(",");
  return [...DEFAULT_PUSH_SERVICES, ...extra].flatMap((e) => parseEntry(e) ?? []);
}

function matches(e: Entry, host: string, port: string): boolean {
  if (e.port !== port) return false;
  if (e.host.startsWith("*.")) {
    const suffix = e.host.slice(1);
    return host.endsWith(suffix) && host.length > suffix.length;
  }
  return e.host === host;
}

/** Why an endpoint is refused (a sentence for the 400), or undefined when it may be used. */
export function endpointRefusal(endpoint: string, services: readonly Entry[] = pushServices()): string | undefined {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return "The subscription's endpoint is not a URL";
  }
  if (url.protocol !== "https:") return "A push endpoint must be an https: URL";
  if (url.username || url.password) return "A push endpoint must not carry a user name or password";
  const host = url.hostname.toLowerCase();
  const port = url.port || "443";
  if (!services.some((e) => matches(e, host, port)))
    return `${url.host} is not a known push service: the console sends only to the browsers' push services and the hosts in ${PUSH_SERVICES_VAR}`;
  return undefined;
}
