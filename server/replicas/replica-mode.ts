import "server-only";
import { Redis } from "ioredis";
import { LOGIN_LIMIT, type SharedAuth } from "../auth/console-auth";
import type { PeerAdmission } from "../auth/peer-admission";
import type { Placement } from "../backends/placement";
import type { BackendRegistry } from "../backends/registry";
import { ApiError, describeError, isApiError } from "../errors";
import { type PeerRequests, readQuery, resumeCursor } from "../http";
import { log } from "../log";
import type { ReplicaConfig } from "./config";
import type { Hub, SessionJournal } from "../hub/hub";
import type { SessionSource } from "../hub/session-source";
import type { GlobalEvent } from "@/lib/model";
import type { SharedSnapshot } from "@/lib/api";
import type { ShareForwarding, SharedFailures } from "../shares/forwarding";
import type { OtherStreams } from "../shares/stream-quota";
import { EventsQuery } from "@/lib/api";
import { type SseSink, sseResponse } from "../hub/sse";
import { forwardRequest, fromReplica, type ReplicaSelf, replicaFetch } from "./forward";
import { LeasePlacement } from "./lease-placement";
import type { PeerPolicy } from "./peers";
import { rawReplicaKeys, type ReplicaKeys } from "./replica-auth";
import { registerSecret } from "../redaction/redact";
import { withholdFromAgents } from "../processes/agent-env";
import { acceptReplicaRequest, admitReplicaRequest, setReplicaGate } from "./replica-gate";
import { RemoteFeeds } from "./remote-feeds";
import { GlobalRelay } from "./global-relay";
import { openRemoteSession, openRemoteStream } from "./remote-session";
import { RedisSessionJournal } from "./session-journal";
import { SharedFailureCounter } from "./shared-failures";
import { SharedStreamCounts } from "./stream-counts";
import { RedisWindowLimiter } from "./redis-limiter";
import { ReplicatedSet } from "./replicated-set";

/** Between a live stream id's replica and its random part. */
const STREAM_SEP = "~";

/**
 * Replica mode (`SWITCHBOARD_REDIS_URL`, docs/architecture.md "Replicas"): one owner per backend by
 * a lease in Redis, requests for a backend forwarded to its owner, the owner's session events kept
 * in Redis Streams, global events relayed, and logouts and failed logins shared by every replica.
 * The store is PostgreSQL (shares, revocations, redaction patterns and backends reach every replica
 * through its NOTIFY).
 */
export interface ReplicaMode {
  /** Where each backend runs: on the replica that holds its lease (server/backends/placement.ts). */
  placement: Placement;
  /** The sessions of the backends this replica runs, journaled in Redis Streams while its lease is good. */
  journal: SessionJournal;
  /** The hub's global events: those about the backends this replica runs go to the others. */
  globalOut(event: GlobalEvent): void;
  /**
   * Where a live stream held here gets a session's events: this replica's channel when it runs the
   * backend, else the owner's stream. While the backend changes hands (no owner yet, or one that
   * does not answer, or is still starting it), it tries again for up to twice the lease's time.
   */
  sessions: SessionSource;
  /** Signed requests from the other replicas checked, and requests for what they run sent there. */
  peerRequests: PeerRequests;
  /** The proxy's check of a signed request. */
  peerAdmission: PeerAdmission;
  /** Live shares whose session runs on another replica (server/shares/forwarding.ts). */
  shareForwarding: ShareForwarding;
  /** Unknown share tokens counted over every replica, checked synchronously. */
  sharedFailures(name: string, limit: number, windowMs: number): SharedFailures;
  /** The public share streams open on the other replicas (for the stream quota). */
  shareStreamsElsewhere: OtherStreams;
  /** Logouts and failed logins counted with the other replicas' (valid once started). */
  sharedAuth: SharedAuth;
  /** What this replica's live stream ids start with (`<replica>~`). */
  liveStreamPrefix: string;
  /** Publishes this replica, loads the shared sets, and starts claiming backends. */
  start(): Promise<void>;
  /** Gives up every lease (the others take the backends at once) and closes the connections. */
  stop(): Promise<void>;
}

/** The console's parts the replica parts call back into, read when first needed (they are built after). */
export interface ReplicaModeDeps {
  registry: () => BackendRegistry;
  hub: () => Hub;
  /** Resolves when the console has started. */
  ready: () => Promise<void>;
  /** This replica's open public share streams per client address (and `*`: all of them). */
  shareStreamCounts: () => Record<string, number>;
}

function connect(url: string, name: string): Redis {
  // One retry per command: a lease renewal that cannot reach Redis must fail, not wait forever.
  const r = new Redis(url, { maxRetriesPerRequest: 1, connectionName: name, lazyConnect: true });
  r.on("error", (err: unknown) => log.warn("redis connection error", { connection: name, error: describeError(err) }));
  return r;
}

export function replicaMode(
  config: ReplicaConfig & { redisUrl: string; replicaUrl: string; replicaKeys: ReplicaKeys; peers: PeerPolicy },
  deps: ReplicaModeDeps,
): ReplicaMode {
  const { ready } = deps;
  // The replicas' key is a secret like the console token: no agent inherits it, and it is redacted.
  for (const k of rawReplicaKeys(process.env.SWITCHBOARD_REPLICA_KEY)) {
    withholdFromAgents(k);
    registerSecret(k);
  }
  // Signed requests from the other replicas are checked against this replica's key and address.
  setReplicaGate({ keys: config.replicaKeys, replicaUrl: config.replicaUrl });
  const redis = connect(config.redisUrl, `switchboard-${config.replicaId}`);
  const subscriber = connect(config.redisUrl, `switchboard-${config.replicaId}-sub`);
  const placement = new LeasePlacement(redis, {
    replicaId: config.replicaId,
    replicaUrl: config.replicaUrl,
    leaseTtlMs: config.leaseTtlMs,
    peers: config.peers,
  });
  const { ownership } = placement;
  const loggedOut = new ReplicatedSet(redis, subscriber, "logouts");
  const limiter = new RedisWindowLimiter(redis, "login", LOGIN_LIMIT);
  const blocked = new ReplicatedSet(redis, subscriber, "blocked");
  let streamCountsStarted = false;
  const streamCounts = new SharedStreamCounts(redis, config.replicaId, deps.shareStreamCounts);

  // What this replica signs its requests to the others with (never the console token).
  const self: ReplicaSelf = { replicaId: config.replicaId, keys: config.replicaKeys, peers: config.peers };
  const feeds = new RemoteFeeds();
  const ownerOf = async (backendId: string) => {
    const owner = await ownership.owner(backendId);
    if (!owner)
      throw new ApiError(
        "backend_down",
        `No replica runs ${backendId} right now (its lease is being taken over); try again`,
      );
    return owner;
  };

  const forward = async (req: Request, params: Readonly<Record<string, unknown>>) => {
    const { backendId, streamId } = params;
    if (typeof backendId === "string") {
      const { sessionId } = params;
      if (typeof sessionId === "string" && req.method === "GET" && new URL(req.url).pathname.endsWith("/events")) {
        const open = await followEvents(backendId, sessionId, resumeCursor(req, readQuery(req, EventsQuery).after));
        return open && sseResponse({ signal: req.signal, open });
      }
      await ready();
      const registry = deps.registry();
      if (!registry.get(backendId) || registry.runsHere(backendId)) return undefined; // 404, or served here
      const owner = await ownerOf(backendId);
      if (owner.replicaId === config.replicaId) return undefined;
      return forwardRequest(req, owner, self);
    }
    if (typeof streamId === "string") {
      // A live stream's subscriptions are set on the replica that holds the stream. The id comes
      // from the client (anonymous, on the share route): it names a replica, which is contacted only
      // when its address is an allowed peer, and the request is signed for it, with no credential.
      const at = streamId.lastIndexOf(STREAM_SEP);
      const holder = at > 0 ? streamId.slice(0, at) : undefined;
      if (!holder || holder === config.replicaId) return undefined;
      const url = await ownership.addressOf(holder);
      if (!url) throw ApiError.notFound("No such live stream (its replica is gone): open a new one");
      return forwardRequest(req, { url, replicaId: holder }, self);
    }
    return undefined;
  };

  // Built at start: it calls into the hub and the registry, which are built after these parts.
  let relay: GlobalRelay | undefined;
  // The sessions of the backends this replica runs are journaled while its lease is good.
  const journal = new RedisSessionJournal(redis, (id) => (ownership.mayWrite(id) ? ownership.token(id) : undefined));

  /**
   * A session's `…/events` on a replica that does not run it: from the shared feed of the owner's
   * stream. Undefined when this replica runs the backend (or no replica does: the route says 404).
   */
  const followEvents = async (backendId: string, sessionId: string, after: number | undefined) => {
    await ready();
    const registry = deps.registry();
    if (!registry.get(backendId) || registry.runsHere(backendId)) return undefined;
    const owner = await ownerOf(backendId);
    if (owner.replicaId === config.replicaId) return undefined;
    const remote = await feeds.source(backendId, sessionId, after, (a) =>
      openRemoteSession({ target: owner, backendId, sessionId, after: a, self }),
    );
    return (sink: SseSink) => remote.attach(sink, () => sink.close());
  };

  const runsElsewhere = (backendId: string) => !!deps.registry().get(backendId) && !placement.runsHere(backendId);
  const shareForwarding: ShareForwarding = {
    runsElsewhere,
    fromPeer: fromReplica,
    async forward(req, backendId, json) {
      return forwardRequest(req, await ownerOf(backendId), self, json);
    },
    async follow(token, backendId, after) {
      const target = await ownerOf(backendId);
      return openRemoteStream({ target, path: `/api/shares/public/${encodeURIComponent(token)}/events`, after, self });
    },
    async snapshot(token, backendId) {
      const target = await ownerOf(backendId);
      // Signed (the owner leaves the view count to this replica), never with the console token.
      const res = await replicaFetch(
        self,
        target,
        `/api/shares/public/${encodeURIComponent(token)}/snapshot`,
        {},
      ).catch(() => undefined);
      if (!res) throw new ApiError("backend_down", "The shared session is temporarily unavailable");
      const body = (await res.json().catch(() => undefined)) as
        | SharedSnapshot
        | { error?: { code?: ApiError["code"]; message?: string } }
        | undefined;
      if (!res.ok || !body || "error" in body) {
        const e = body && "error" in body ? body.error : undefined;
        throw new ApiError(e?.code ?? "backend_down", e?.message ?? "The shared session is temporarily unavailable");
      }
      return body as SharedSnapshot;
    },
  };

  return {
    placement,
    journal,
    globalOut: (e) => relay?.send(e),
    peerRequests: { accept: acceptReplicaRequest, forward, events: followEvents },
    peerAdmission: { admit: admitReplicaRequest },
    shareForwarding,
    sharedFailures: (name, limit, windowMs) => new SharedFailureCounter(redis, blocked, name, limit, windowMs),
    shareStreamsElsewhere: (client) => (streamCountsStarted ? streamCounts.elsewhere(client) : 0),
    sharedAuth: { loggedOut, limiter },
    liveStreamPrefix: `${config.replicaId}${STREAM_SEP}`,
    sessions: {
      async open(backendId, sessionId, after) {
        const deadline = Date.now() + 2 * config.leaseTtlMs + 1_000;
        for (;;) {
          try {
            if (placement.runsHere(backendId)) return { channel: await deps.hub().open(backendId, sessionId) };
            const target = await ownerOf(backendId);
            if (target.replicaId !== config.replicaId)
              return {
                followed: await feeds.source(backendId, sessionId, after, (a) =>
                  openRemoteSession({ target, backendId, sessionId, after: a, self }),
                ),
              };
          } catch (err) {
            const moving = isApiError(err) && (err.code === "backend_down" || err.code === "upstream_failed");
            if (!moving || Date.now() > deadline) throw err;
          }
          await new Promise((r) => setTimeout(r, 250));
        }
      },
    },
    async start() {
      try {
        await redis.connect();
        await subscriber.connect();
        await redis.ping();
      } catch (err) {
        throw new Error(`could not reach Redis (SWITCHBOARD_REDIS_URL): ${describeError(err)}`);
      }
      await ownership.start();
      await loggedOut.start();
      await blocked.start();
      await streamCounts.start();
      streamCountsStarted = true;
      relay = new GlobalRelay(redis, subscriber, config.replicaId, deps.hub(), deps.registry());
      await relay.start();
      log.info("replica mode", { replica: config.replicaId, url: config.replicaUrl, leaseTtlMs: config.leaseTtlMs });
    },
    async stop() {
      setReplicaGate(undefined);
      relay?.stop();
      await ownership.stop();
      await loggedOut.stop();
      await blocked.stop();
      streamCountsStarted = false;
      await streamCounts.stop();
      redis.disconnect();
      subscriber.disconnect();
    },
  };
}
