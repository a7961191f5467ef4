import "server-only";
import net from "node:net";
import { z } from "zod";
import { log } from "../log";

/**
 * Which addresses this replica may contact as a peer (docs/security.md, "Replicas"). An address is
 * read from Redis (`sb:replica:<id>`), which is not trusted: it is used only when it is a well-formed
 * URL, `http://` only to a loopback host (anything else needs `https://`), and on the configured
 * list `SWITCHBOARD_REPLICAS` (base URLs, or `host[:port]`). With no list, only loopback addresses
 * are peers (replicas on one machine). An address that fails is never contacted; it is logged once.
 */

/** Is the host a loopback name or address (`localhost`, 127.0.0.0/8, `::1`)? */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (h === "localhost" || h.endsWith(".localhost")) return true;
  if (net.isIPv4(h)) return h.startsWith("127.");
  if (net.isIPv6(h)) return h === "::1" || h === "0:0:0:0:0:0:0:1";
  return false;
}

/** Why a URL cannot be a replica's address (undefined: it can): scheme, loopback rule, no credentials. */
export function peerUrlProblem(raw: string): string | undefined {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return "must be an http:// or https:// URL";
  }
  if (u.protocol !== "https:" && u.protocol !== "http:") return "must be an http:// or https:// URL";
  if (u.username || u.password) return "may not carry a user name or password";
  if (u.protocol === "http:" && !isLoopbackHost(u.hostname))
    return "must use https:// (http:// only to a loopback address: 127.0.0.1, ::1, localhost)";
  return undefined;
}

const effectivePort = (u: URL) => u.port || (u.protocol === "https:" ? "443" : "80");

interface PeerEntry {
  /** A base URL given with its scheme: the origin must match exactly. */
  origin?: string;
  /** `host[:port]`: the host (and the port, when given) must match. */
  host?: string;
  port?: string;
}

/** One entry of `SWITCHBOARD_REPLICAS`, or the reason it is not one. */
function parseEntry(raw: string): PeerEntry | string {
  if (raw.includes("://")) {
    const problem = peerUrlProblem(raw);
    if (problem) return `entry "${raw}" ${problem}`;
    const u = new URL(raw);
    return { origin: `${u.protocol}//${u.hostname}:${effectivePort(u)}` };
  }
  let u: URL;
  try {
    u = new URL(`https://${raw}`);
  } catch {
    return `entry "${raw}" is neither a URL nor host[:port]`;
  }
  if (u.pathname !== "/" || u.search || u.username || `${u.host}`.toLowerCase() !== raw.toLowerCase())
    return `entry "${raw}" is neither a URL nor host[:port]`;
  return { host: u.hostname, ...(u.port ? { port: u.port } : {}) };
}

/** The peer list from `SWITCHBOARD_REPLICAS`; throws a sentence naming a wrong entry. */
export function parsePeerList(value: string): PeerEntry[] {
  const entries: PeerEntry[] = [];
  for (const raw of value
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)) {
    const e = parseEntry(raw);
    if (typeof e === "string") throw new Error(e);
    entries.push(e);
  }
  if (!entries.length) throw new Error("lists no replica");
  return entries;
}

/** A replica's address as stored in Redis: a URL string of sensible length. */
const StoredAddress = z.string().min(1).max(2048);

export class PeerPolicy {
  private warned = new Set<string>();

  /** `entries` undefined: `SWITCHBOARD_REPLICAS` is not set, and only loopback addresses are peers. */
  constructor(private entries: readonly PeerEntry[] | undefined) {}

  static fromList(value: string | undefined): PeerPolicy {
    return new PeerPolicy(value?.trim() ? parsePeerList(value) : undefined);
  }

  /** May this URL be contacted as a replica (well-formed, scheme rule, on the list)? */
  allows(raw: string): boolean {
    if (peerUrlProblem(raw)) return false;
    const u = new URL(raw);
    if (!this.entries) return isLoopbackHost(u.hostname);
    const origin = `${u.protocol}//${u.hostname}:${effectivePort(u)}`;
    return this.entries.some((e) =>
      e.origin !== undefined
        ? e.origin === origin
        : e.host === u.hostname && (e.port === undefined || e.port === effectivePort(u)),
    );
  }

  /**
   * A replica's address read from Redis, if it may be contacted; otherwise undefined, with a warning
   * the first time this address is refused.
   */
  check(replicaId: string, stored: unknown): string | undefined {
    const parsed = StoredAddress.safeParse(stored);
    if (parsed.success && this.allows(parsed.data)) return parsed.data;
    const shown = parsed.success ? parsed.data.slice(0, 200) : typeof stored;
    if (!this.warned.has(`${replicaId}\u0000${shown}`)) {
      if (this.warned.size > 1000) this.warned.clear();
      this.warned.add(`${replicaId}\u0000${shown}`);
      log.warn("refused a replica address read from Redis: not an allowed peer (SWITCHBOARD_REPLICAS)", {
        replica: replicaId.slice(0, 200),
        address: shown,
        reason: parsed.success ? (peerUrlProblem(parsed.data) ?? "not on the list") : "not a string",
      });
    }
    return undefined;
  }
}
