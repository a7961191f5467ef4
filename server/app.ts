import "server-only";
import { setAuditSink } from "./auth/audit";
import { consoleAuth, shareAuthState } from "./auth/console-auth";
import { admitPeers } from "./auth/peer-admission";
import { OidcConfigError, oidcSignIn } from "./auth/oidc";
import { knownSecrets } from "./redaction/redact";
import { Redactor } from "./redaction/redactor";
import { loadSecretBox, SecretKeyError } from "./auth/secret-box";
import { describeError } from "./errors";
import { localPlacement } from "./backends/placement";
import { BackendRegistry } from "./backends/registry";
import { sealedStore, startStoredSecrets } from "./backends/stored-secrets";
import { readConfig, type ConsoleConfig } from "./config";
import { noPeers, servePeerRequests } from "./http";
import { Hub } from "./hub/hub";
import { localSessionSource, type SessionSource } from "./hub/session-source";
import { Lineage } from "./lineage";
import { nameLiveStreams } from "./live-streams";
import { Attribution } from "./sessions/attribution";
import { log } from "./log";
import { withholdFromAgents } from "./processes/agent-env";
import { PushService } from "./push/service";
import { TerminalManager } from "./workspace/terminals";
import { CompareService } from "./compare/service";
import { SearchIndexer } from "./search/indexer";
import { readReplicaConfig, ReplicaConfigError } from "./replicas/config";
import { replicaMode, type ReplicaMode } from "./replicas/replica-mode";
import type { ShareParts } from "./shares/forwarding";
import { shareFailureLimits } from "./shares/limits";
import { shareStreamQuota } from "./shares/stream-quota";
import { openStore } from "./store/open-store";
import type { LiveStore } from "./store/store";

export const VERSION = "0.1.0";

/** The console cannot start as configured (a store that does not open, a replica setting that is wrong). */
export class StartError extends Error {
  override name = "StartError";
}

export interface ConsoleApp {
  config: ConsoleConfig;
  store: LiveStore;
  hub: Hub;
  backends: BackendRegistry;
  lineage: Lineage;
  /** Who created a session, sent a message, answered an interrupt (docs/people.md, "Attribution"). */
  attribution: Attribution;
  search: SearchIndexer;
  /** Web Push to the devices people subscribed (docs/push.md). */
  push: PushService;
  /** Where a session's events come from (this hub, or in replica mode the replica that runs it). */
  sessions: SessionSource;
  /** Sharing's parts that differ across replicas: the stream quota, forwarding, shared failure counts. */
  sharing: ShareParts;
  /** Terminals in sessions' directories (docs/workspace.md), on the replica that runs the backend. */
  terminals: TerminalManager;
  /** One task on several agents (docs/compare.md); told of turn ends to run a group's tests. */
  compare: CompareService;
  ready: Promise<void>;
  stop(): Promise<void>;
}

/** Runs a start-up step whose failure is a wrong setting: its sentence becomes a `StartError`. */
function startStep<T>(step: () => T): T {
  try {
    return step();
  } catch (err) {
    if (err instanceof ReplicaConfigError || err instanceof SecretKeyError || err instanceof OidcConfigError)
      throw new StartError(err.message);
    throw err;
  }
}

function create(): ConsoleApp {
  const config = readConfig();
  // The console token (registered for redaction by consoleAuth) is never an agent's to inherit.
  withholdFromAgents(consoleAuth().token.token);
  const replica = startStep(readReplicaConfig);
  // Sign-in with OIDC (docs/people.md): a wrong setting stops the start with its sentence.
  startStep(() => oidcSignIn(consoleAuth().key));
  // The key that seals the secrets kept in the store (docs/security.md, "Secrets at rest").
  const box = startStep(() =>
    loadSecretBox({ env: process.env, dataDir: config.dataDir, replicaMode: !!replica.redisUrl }),
  );
  const {
    store: raw,
    opened,
    engine,
  } = openStore({
    dataDir: config.dataDir,
    databaseUrl: replica.databaseUrl,
    ownedTranscripts: !!replica.redisUrl,
  });
  const store = sealedStore(raw, box);
  // The audit log (docs/people.md): details redacted as shares are, appended in order once the store answers.
  let audited: Promise<void> = Promise.resolve();
  setAuditSink((entry) => {
    const next = audited
      .then(() => opened)
      .then(() => {
        const redactor = new Redactor(store.listRedactionPatterns(), knownSecrets());
        const detail = entry.detail ? (redactor.value(entry.detail) as Record<string, unknown>) : undefined;
        store.appendAudit(detail ? { ...entry, detail } : entry);
      });
    audited = next.catch(() => {});
    return next;
  });
  // The composition root (docs/architecture.md): one console, or a replica (SWITCHBOARD_REDIS_URL)
  // whose parts are built first and passed to the hub, the registry, the routes and sharing.
  let ready: Promise<void> | undefined;
  const shareStreams = shareStreamQuota((client) => replicas?.shareStreamsElsewhere(client) ?? 0);
  const replicas: ReplicaMode | undefined =
    replica.redisUrl && replica.replicaUrl && replica.replicaKeys && replica.peers
      ? replicaMode(
          {
            ...replica,
            redisUrl: replica.redisUrl,
            replicaUrl: replica.replicaUrl,
            replicaKeys: replica.replicaKeys,
            peers: replica.peers,
          },
          {
            registry: () => registry,
            hub: () => hub,
            ready: () => ready ?? Promise.resolve(),
            shareStreamCounts: () => shareStreams.counts(),
          },
        )
      : undefined;
  const attribution = new Attribution(store);
  const lineage = new Lineage(store, (backendId, session) => attribution.session(backendId, session));
  const hub: Hub = new Hub(
    (id) => registry.get(id),
    (backendId, session) => lineage.decorate(backendId, session),
    { journal: replicas?.journal, globalOut: replicas?.globalOut, annotate: attribution },
  );
  const registry: BackendRegistry = new BackendRegistry(config, store, hub, replicas?.placement ?? localPlacement());
  const sessions = replicas?.sessions ?? localSessionSource(hub);
  const { failureLimit, failureWindowMs } = shareFailureLimits();
  const sharing: ShareParts = {
    streams: shareStreams,
    forwarding: replicas?.shareForwarding,
    sharedFailures: replicas?.sharedFailures("share-tokens", failureLimit, failureWindowMs),
  };
  servePeerRequests(replicas?.peerRequests ?? noPeers);
  admitPeers(replicas?.peerAdmission);
  if (replicas) nameLiveStreams(replicas.liveStreamPrefix);
  const search = new SearchIndexer({
    store,
    // A replica indexes the backends it runs; the others are indexed by their owners.
    backends: () => registry.list().flatMap((b) => (registry.runsHere(b.id) ? (registry.get(b.id) ?? []) : [])),
    ...(process.env.SWITCHBOARD_SEARCH_INTERVAL_MS
      ? { intervalMs: Number(process.env.SWITCHBOARD_SEARCH_INTERVAL_MS) }
      : {}),
  });
  hub.observe(search);
  // Pushes interrupts and finished turns to subscribed devices; the hub tells it only of the events of
  // backends this console runs (replica mode relays, it does not publish again), so each goes out once.
  const push = new PushService(store, hub);
  hub.observe(push.notifier);
  const terminals = new TerminalManager();
  const compare = new CompareService({ store, hub, backends: registry, config, attribution });
  hub.observe(compare);
  ready = opened
    // Seals what is in clear or under a previous key, and registers every stored key for redaction.
    .then(() => startStoredSecrets(raw, box))
    // The VAPID key pair exists from the first start on (generated then, sealed in the store).
    .then(() => void push.publicKey())
    .then(() => replicas?.start())
    // Logouts and failed logins from now on are counted with the other replicas'.
    .then(() => replicas && shareAuthState(replicas.sharedAuth))
    .catch((err: unknown) => {
      throw new StartError(describeError(err));
    })
    .then(() => {
      // Another replica added or removed a backend (the store's NOTIFY): list it here too.
      store.onChange?.((table) => {
        if (table === "backends") void registry.syncFromStore();
      });
      return registry.start();
    })
    .then(() => search.start());
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      hub.stop();
      search.stop();
      await terminals.stop();
      await registry.stopAll();
      if (replicas) {
        servePeerRequests(noPeers);
        admitPeers(undefined);
        shareAuthState(undefined);
        await replicas.stop();
      }
      await store.close();
    })());
  for (const sig of ["SIGTERM", "SIGINT"] as const) {
    process.once(sig, () => {
      log.info("stopping", { signal: sig });
      void stop().finally(() => process.exit(0));
    });
  }
  log.info("console started", { workspace: config.workspace, dataDir: config.dataDir, store: engine });
  return {
    config,
    store,
    hub,
    backends: registry,
    lineage,
    attribution,
    search,
    push,
    terminals,
    compare,
    sessions,
    sharing,
    ready,
    stop,
  };
}

const g = globalThis as typeof globalThis & { __switchboard?: ConsoleApp };

/** The console's long-lived state, one per process, kept on globalThis so dev reloads reuse it. */
export function getApp(): ConsoleApp {
  return (g.__switchboard ??= create());
}
