import "server-only";
import { randomBytes } from "node:crypto";
import type { BackendDefinition } from "@/lib/api";
import type { Backend, Interrupt } from "@/lib/model";
import { slug, type ConsoleConfig } from "../config";
import { ApiError } from "../errors";
import type { Hub } from "../hub/hub";
import { log } from "../log";
import { EmbeddedOpencode } from "../processes/opencode-serve";
import type { Store } from "../store/store";
import { OpencodeAdapter } from "./opencode/adapter";
import type { BackendAdapter } from "./types";

export const EMBEDDED_ID = "local";

/** Creates, starts and stops backend adapters from the store, the environment and the API. */
export class BackendRegistry {
  private adapters = new Map<string, BackendAdapter>();
  private sources = new Map<string, "env" | "store" | "embedded">();

  constructor(
    private config: ConsoleConfig,
    private store: Store,
    private hub: Hub,
  ) {}

  async start(): Promise<void> {
    for (const { id, def } of this.config.envBackends) this.add(id, def, "env");
    for (const b of this.store.listBackends()) if (!this.adapters.has(b.id)) this.add(b.id, b.def, "store");
    if (this.adapters.size === 0) this.startEmbedded();
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
    return [...this.adapters.values()].flatMap((a) => (a.pendingInterrupts?.() ?? []).map((i) => ({ ...i, backendId: a.id })));
  }

  list(): Backend[] {
    return [...this.adapters.values()].map((a) => a.info());
  }

  /** Adds a backend from the API and keeps it in the store. */
  create(def: BackendDefinition): Backend {
    if (def.kind !== "opencode") {
      throw ApiError.badRequest(`Backend kind "${def.kind}" is not available in this version of the console`);
    }
    let id = slug(def.label);
    while (this.adapters.has(id)) id = `${slug(def.label)}-${randomBytes(2).toString("hex")}`;
    this.store.putBackend({ id, def, createdAt: Date.now() });
    return this.add(id, def, "store").info();
  }

  async remove(id: string): Promise<void> {
    const a = this.require(id);
    if (this.sources.get(id) === "env") throw ApiError.conflict(`Backend ${id} comes from the environment; remove it there`);
    this.adapters.delete(id);
    this.sources.delete(id);
    this.store.deleteBackend(id);
    this.hub.dropBackend(id);
    await a.stop();
  }

  async stopAll(): Promise<void> {
    await Promise.allSettled([...this.adapters.values()].map((a) => a.stop()));
  }

  private add(id: string, def: BackendDefinition, source: "env" | "store"): BackendAdapter {
    if (def.kind !== "opencode") {
      log.warn("backend kind not supported yet; skipping", { id, kind: def.kind });
      throw ApiError.badRequest(`Backend kind "${def.kind}" is not available in this version of the console`);
    }
    const adapter = new OpencodeAdapter(
      {
        id,
        label: def.label,
        ...(def.config.baseUrl ? { baseUrl: def.config.baseUrl } : {}),
        ...(def.config.username ? { username: def.config.username } : {}),
        ...(def.config.password ? { password: def.config.password } : {}),
        ...(def.config.directory ? { directory: def.config.directory } : {}),
        ...(def.config.baseUrl ? {} : { embedded: new EmbeddedOpencode({ cwd: def.config.directory ?? this.config.workspace }) }),
      },
      this.hub,
    );
    this.adapters.set(id, adapter);
    this.sources.set(id, source);
    adapter.start().catch((err: unknown) => log.error("backend failed to start", { id, error: String(err) }));
    return adapter;
  }

  private startEmbedded() {
    const adapter = new OpencodeAdapter(
      { id: EMBEDDED_ID, label: "OpenCode", embedded: new EmbeddedOpencode({ cwd: this.config.workspace }) },
      this.hub,
    );
    this.adapters.set(EMBEDDED_ID, adapter);
    this.sources.set(EMBEDDED_ID, "embedded");
    adapter.start().catch((err: unknown) => log.error("embedded opencode failed to start", { error: String(err) }));
  }
}
