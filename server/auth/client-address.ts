import "server-only";
import { randomBytes } from "node:crypto";
import type http from "node:http";
import { BlockList, isIP } from "node:net";
import { onServerRequest, type ServerRequestHook } from "../server-requests";

/**
 * Who a request comes from, for the limits that count per client (failed logins, unknown share
 * tokens, open share streams). The key is the TCP peer of the request's socket, never a header the
 * client wrote: `X-Forwarded-For` is read only when the peer is a trusted proxy
 * (`SWITCHBOARD_TRUSTED_PROXIES`), and then from the right, past the trusted proxies.
 *
 * Next hands a route a `Request` without its socket, and sets `X-Forwarded-For` from the socket only
 * when the client sent none. So the console's server stamps every request with its socket's address
 * (`stampPeerAddresses`, installed by instrumentation.ts before the first request is served), under
 * a header carrying a secret of this process: a client that sends the header itself is overwritten,
 * and a stamp without the secret is ignored.
 */
export const PEER_HEADER = "x-switchboard-peer";

interface StampState {
  secret: string;
}
const STATE = Symbol.for("switchboard.peer-stamp");
type WithStamp = typeof globalThis & { [STATE]?: StampState };

function state(): StampState {
  const g = globalThis as WithStamp;
  g[STATE] ??= { secret: randomBytes(16).toString("hex") };
  return g[STATE];
}

/** Makes every request an `http.Server` of this process emits carry its socket's peer address (idempotent). */
export function stampPeerAddresses(): void {
  onServerRequest(stampHook);
}

const stampHook: ServerRequestHook = (req) => {
  stampPeerAddress(req);
  return false;
};

/** Stamps one request with its socket's peer address (what `stampPeerAddresses` does to every request). */
export function stampPeerAddress(req: http.IncomingMessage | undefined): void {
  if (req?.headers) req.headers[PEER_HEADER] = `${state().secret} ${req.socket?.remoteAddress ?? "unknown"}`;
}

/** The stamped peer address, when the request carries this process's stamp. */
export function peerAddress(headers: Headers): string | undefined {
  const v = headers.get(PEER_HEADER);
  if (!v) return undefined;
  const at = v.indexOf(" ");
  if (at < 0 || v.slice(0, at) !== state().secret) return undefined;
  return normalize(v.slice(at + 1));
}

/** `SWITCHBOARD_TRUSTED_PROXIES`: a count of proxy hops in front of the console, or their addresses and CIDRs. */
export type TrustedProxies = { hops: number } | { list: BlockList; size: number };

const parsed = new Map<string, TrustedProxies>();

/** The proxies the console trusts to say who the client is (none by default). */
export function trustedProxies(value = process.env.SWITCHBOARD_TRUSTED_PROXIES ?? ""): TrustedProxies {
  const cached = parsed.get(value);
  if (cached) return cached;
  const v = value.trim();
  let out: TrustedProxies;
  if (v === "" || /^\d+$/.test(v)) out = { hops: Math.min(Number(v || "0"), 16) };
  else {
    const list = new BlockList();
    let size = 0;
    for (const item of v
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean)) {
      const [addr, bits] = item.split("/") as [string, string | undefined];
      const family = isIP(addr);
      if (!family) continue; // not an address: never trusted (docs/security.md says how to write them)
      const type = family === 6 ? "ipv6" : "ipv4";
      if (bits === undefined) list.addAddress(addr, type);
      else list.addSubnet(addr, Number(bits), type);
      size++;
    }
    out = { list, size };
  }
  if (parsed.size > 32) parsed.clear();
  parsed.set(value, out);
  return out;
}

function trusted(proxies: TrustedProxies, address: string): boolean {
  if (!("list" in proxies)) return false;
  const family = isIP(address);
  return family !== 0 && proxies.list.check(address, family === 6 ? "ipv6" : "ipv4");
}

/** An address as a key: IPv4-mapped IPv6 as IPv4, anything that is not an address marked as such, bounded. */
function normalize(raw: string): string {
  let a = raw.trim();
  if (a.startsWith("[") && a.includes("]")) a = a.slice(1, a.indexOf("]"));
  if (/^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(a)) a = a.slice(7);
  if (isIP(a)) return a.toLowerCase();
  // A proxy may write `address:port`.
  const m = /^(\d+\.\d+\.\d+\.\d+):\d+$/.exec(a);
  if (m) return m[1]!;
  return a ? "not-an-address" : "unknown";
}

/**
 * The client a request is counted against: the socket's peer, or, when that peer is a trusted
 * proxy, the address the proxies recorded (`X-Forwarded-For` read from the right: with a count of
 * hops, the entry that many places from the end; with a list, the first entry that is not a trusted
 * proxy). A request without this process's stamp (none should reach a route) is "unknown": one
 * client, whatever its headers say. An IPv6 client is its /64.
 */
export function clientAddress(headers: Headers, proxies: TrustedProxies = trustedProxies()): string {
  return perHost(addressOf(headers, proxies));
}

/**
 * An IPv6 address as its /64: one host (one customer's network) can take any address in its /64,
 * so counting per address would give it 2⁶⁴ clients. Loopback stays as it is.
 */
function perHost(address: string): string {
  if (isIP(address) !== 6 || address === "::1") return address;
  const [head = "", tail] = address.split("::") as [string, string | undefined];
  const groups = head.split(":").filter(Boolean);
  if (tail !== undefined) {
    const rest = tail.split(":").filter(Boolean);
    const restCount = rest.reduce((n, g) => n + (g.includes(".") ? 2 : 1), 0);
    groups.push(...Array<string>(Math.max(0, 8 - groups.length - restCount)).fill("0"), ...rest);
  }
  const prefix = groups.slice(0, 4).map((g) => (g.includes(".") ? "0" : Number.parseInt(g, 16).toString(16)));
  return `${prefix.join(":")}::/64`;
}

function addressOf(headers: Headers, proxies: TrustedProxies): string {
  const forwarded = (headers.get("x-forwarded-for") ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)
    .slice(-32);
  const peer = peerAddress(headers);
  // Not stamped: nothing in the request can be trusted to name its client.
  if (peer === undefined) return "unknown";
  if ("hops" in proxies) {
    if (proxies.hops === 0 || forwarded.length === 0) return peer;
    return normalize(forwarded[Math.max(0, forwarded.length - proxies.hops)]!);
  }
  if (!trusted(proxies, peer)) return peer;
  for (let i = forwarded.length - 1; i >= 0; i--) {
    const a = normalize(forwarded[i]!);
    if (!trusted(proxies, a)) return a;
  }
  return forwarded.length ? normalize(forwarded[0]!) : peer;
}
