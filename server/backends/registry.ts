import "server-only";
import { randomBytes } from "node:crypto";
import type { BackendDefinition } from "@/lib/api";
import type { Backend, Interrupt } from "@/lib/model";
import { isOutsideRoots } from "../auth/workspace";
import { slug, type ConsoleConfig } from "../config";
import { ApiError } from "../errors";
import { withinBounds, type Hub } from "../hub/hub";
import { log } from "../log";
import type { LiveStore } from "../store/store";
import { confineBackendDirs, kindEntry } from "./kinds";
import { localPlacement, type Placement } from "./placement";
import { registerBackendSecrets } from "./secrets";
import type { BackendAdapter } from "./types";

export const EMBEDDED_ID = "local";

/** Creates, starts and stops backend adapters from the store, the environment and the API. */
export class BackendRegistry {
  private adapters = new Map<string, BackendAdapter>();
  private sources = new Map<string, "env" | "store" | "embedded">();
  private defs = new Map<string, BackendDefinition>();
  /** Run elsewhere (replica mode): how the console that runs it last described each backend. */
  private remote = new Map<string, Backend>();
  /** Run elsewhere: the pending interrupts the console that runs it last listed, per backend. */
  private remotePending = new Map<string, Interrupt[]>();
  /** Per backend, the placement steps applied in order (a start finishes before a stop begins). */
  private placementSteps = new Map<string, Promise<void>>();

  /**
   * `placement` says which backends this console runs (all of them, by default). Every backend gets
   * an adapter, so every console lists the same ones, but only the ones placed here are started.
   */
  constructor(
    private config: ConsoleConfig,
    private store: LiveStore,
    private hub: Hub,
    private placement: Placement = localPlacement(),
  ) {
    placement.listen({
      runHere: (id, current) => this.runHere(id, current),
      movedAway: (id) => this.movedAway(id),
    });
  }

  /** Placement moved the backend here: read its transcripts as the last console left them, then run it. */
  private runHere(id: string, current: () => boolean): void {
    this.inOrder(id, async () => {
      const a = this.adapters.get(id);
      if (!a || !current()) return;
      log.info("running a backend here (placed on this console)", { id });
      // Channels opened while another console ran it hold nothing of its log: they are opened again.
      this.hub.closeBackend(id);
      await this.store.reloadTranscripts?.(id);
      await a.start();
      this.hub.backendChanged(a.info());
    });
  }

  /**
   * Placement moved the backend away: stop the agents now, close the streams that followed them (they
   * reconnect to where it runs now) and keep a fresh, unstarted adapter for the listing.
   */
  private movedAway(id: string): void {
    this.inOrder(id, async () => {
      const old = this.adapters.get(id);
      const def = this.defs.get(id);
      if (!old || !def) return;
      log.warn("stopped running a backend here (placed elsewhere now)", { id });
      this.adapters.set(id, this.make(id, def, this.sources.get(id) ?? "store"));
      this.hub.closeBackend(id);
      await old.stop();
      this.store.dropTranscripts?.(id);
    });
  }

  private inOrder(id: string, step: () => Promise<void>): void {
    const next = (this.placementSteps.get(id) ?? Promise.resolve())
      .then(step)
      .catch((err: unknown) => log.error("backend failed to start", { id, error: String(err) }));
    this.placementSteps.set(id, next);
  }

  /** Run elsewhere: the description of a backend by the console that runs it (replica mode). */
  rememberRemote(b: Backend): void {
    this.remote.set(b.id, b);
  }

  /** Run elsewhere: the pending interrupts the console that runs the backend lists. */
  rememberRemotePending(backendId: string, list: Interrupt[]): void {
    this.remotePending.set(backendId, list);
  }

  /** Does this console run the backend (placement's answer; always, for one console)? */
  runsHere(id: string): boolean {
    return this.placement.runsHere(id);
  }

  /**
   * Another replica added or removed a backend in the store: list (and claim) the new ones, drop the
   * ones gone. The environment's backends are every replica's own and stay.
   */
  async syncFromStore(): Promise<void> {
    const stored = new Map(this.store.listBackends().map((b) => [b.id, b]));
    for (const [id, source] of [...this.sources]) {
      if (source !== "store" || stored.has(id)) continue;
      const a = this.adapters.get(id);
      this.adapters.delete(id);
      this.sources.delete(id);
      this.defs.delete(id);
      await this.placement.release(id);
      this.hub.dropBackend(id);
      await a?.stop();
    }
    for (const b of stored.values()) {
      if (this.adapters.has(b.id)) continue;
      const def = await this.confineStored(b.id, b.def);
      if (!def || this.adapters.has(b.id)) continue;
      try {
        const a = this.add(b.id, def, "store");
        this.hub.backendChanged(a.info());
      } catch (err) {
        log.warn("skipping a backend this console cannot run", { id: b.id, error: String(err) });
      }
    }
  }

  async start(): Promise<void> {
    const tryAdd = (id: string, def: BackendDefinition, source: "env" | "store") => {
      try {
        this.add(id, def, source);
      } catch (err) {
        log.warn("skipping a backend this console cannot run", {
          id,
          kind: def.kind,
          error: err instanceof Error ? err.message : String(err),
        });
      }
    };
    // The operator's own (SWITCHBOARD_BACKENDS, OPENCODE_BASE_URL): trusted, may run anywhere.
    for (const { id, def } of this.config.envBackends) tryAdd(id, def, "env");
    for (const b of this.store.listBackends()) {
      if (this.adapters.has(b.id)) continue;
      const def = await this.confineStored(b.id, b.def);
      if (def) tryAdd(b.id, def, "store");
    }
    if (this.adapters.size === 0) this.startEmbedded();
  }

  /**
   * Stored backends came from a browser (`POST /api/backends`, which confines their directories):
   * check them again against today's roots, which may have narrowed since, or a symlink moved. One
   * that now runs outside is not started (widen the roots to get it back, then remove it); a
   * missing directory is left for the backend to report, as before.
   */
  private async confineStored(id: string, def: BackendDefinition): Promise<BackendDefinition | undefined> {
    try {
      return await confineBackendDirs(def, this.config.workspaceRoots);
    } catch (err) {
      if (!isOutsideRoots(err)) return def;
      log.warn(
        "not starting a stored backend: its directory is outside the workspace roots (SWITCHBOARD_WORKSPACE_ROOTS)",
        { id, kind: def.kind },
      );
      return undefined;
    }
  }

  get(id: string): BackendAdapter | undefined {
    return this.adapters.get(id);
  }

  require(id: string): BackendAdapter {
    const a = this.adapters.get(id);
    if (!a) throw ApiError.notFound(`Unknown backend: ${id}`);
    return a;
  }

  pendingInterrupts(): (Interrupt & { backendId: string })[] {
    return [...this.adapters.values()].flatMap((a) =>
      withinBounds((this.runsHere(a.id) ? a.pendingInterrupts?.() : this.remotePending.get(a.id)) ?? []).map((i) => ({
        ...i,
        backendId: a.id,
      })),
    );
  }

  /** Asks every backend that can to re-read its pending requests (failures are logged, never thrown). */
  refreshInterrupts(): void {
    for (const a of this.adapters.values()) {
      if (!this.runsHere(a.id)) continue; // the console that runs it keeps its list
      void a.refreshInterrupts?.().catch((err: unknown) =>
        log.warn("could not refresh pending requests", {
          backend: a.id,
          error: err instanceof Error ? err.message : String(err),
        }),
      );
    }
  }

  list(): Backend[] {
    return [...this.adapters.values()].map((a) => this.describe(a));
  }

  /** A backend as the browser sees it, with where it came from. */
  describe(a: BackendAdapter): Backend {
    const source = this.sources.get(a.id);
    // Run by another replica: as its owner described it last (this adapter was never started).
    const remote = this.runsHere(a.id) ? undefined : this.remote.get(a.id);
    return { ...(remote ?? a.info()), ...(source ? { source } : {}) };
  }

  /**
   * Adds a backend from the API and keeps it in the store. The route has already confined its
   * directories to the workspace roots (`confineBackendDirs`).
   */
  create(def: BackendDefinition): Backend {
    kindEntry(def.kind); // 400 for a kind this console cannot run
    let id = slug(def.label);
    // "presets" and "kinds" are routes (GET /api/backends/presets, /kinds), not backends
    while (this.adapters.has(id) || id === "presets" || id === "kinds")
      id = `${slug(def.label)}-${randomBytes(2).toString("hex")}`;
    const adapter = this.add(id, def, "store");
    this.store.putBackend({ id, def, createdAt: Date.now() });
    this.hub.backendChanged(adapter.info());
    return this.describe(adapter);
  }

  async remove(id: string): Promise<void> {
    const a = this.require(id);
    if (this.sources.get(id) === "env")
      throw ApiError.conflict(`Backend ${id} comes from the environment; remove it there`);
    this.adapters.delete(id);
    this.sources.delete(id);
    this.defs.delete(id);
    this.store.deleteBackend(id);
    this.store.deleteTranscripts(id);
    a.forget?.();
    this.hub.dropBackend(id);
    await this.placement.release(id);
    await a.stop();
  }

  async stopAll(): Promise<void> {
    await Promise.allSettled([...this.adapters.values()].map((a) => a.stop()));
  }

  private add(id: string, def: BackendDefinition, source: "env" | "store" | "embedded"): BackendAdapter {
    registerBackendSecrets(def);
    const adapter = this.make(id, def, source);
    this.adapters.set(id, adapter);
    this.sources.set(id, source);
    this.defs.set(id, def);
    if (this.placement.place(id) === "here")
      adapter.start().catch((err: unknown) => log.error("backend failed to start", { id, error: String(err) }));
    return adapter;
  }

  private make(id: string, def: BackendDefinition, source: "env" | "store" | "embedded"): BackendAdapter {
    // The embedded backend is the console's own: as trusted as the operator's.
    const ctxSource = source === "embedded" ? "env" : source;
    return kindEntry(def.kind).create(def.config, {
      id,
      label: def.label,
      source: ctxSource,
      workspace: this.config.workspace,
      workspaceRoots: this.config.workspaceRoots,
      store: this.placement.storeFor(id, this.store),
      sink: this.hub,
    });
  }

  /** With no backend configured, the console runs its own `opencode serve` (an `opencode` entry without a URL). */
  private startEmbedded() {
    this.add(EMBEDDED_ID, { kind: "opencode", label: "OpenCode", config: {} }, "embedded");
  }
}
