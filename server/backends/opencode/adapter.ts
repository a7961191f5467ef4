import "server-only";
import nodePath from "node:path";
import type { OpencodeClient } from "@opencode-ai/sdk/v2/client";
import type {
  Backend,
  BackendStatus,
  FileDiff,
  Interrupt,
  Message,
  ModelRef,
  Session,
  SessionStatus,
} from "@/lib/model";
import type { AgentList, CreateSessionBody, InterruptAnswer, ModelList, PromptBody } from "@/lib/api";
import { redactSecrets, registerSecret } from "../../redaction/redact";
import { ApiError, describeError, isApiError } from "../../errors";
import { log } from "../../log";
import type { EmbeddedOpencode } from "../../processes/opencode-serve";
import type { BackendAdapter, EventSink, LoadedSession } from "../types";
import { toSession } from "./normalize";
import { ApiBackend } from "./api-backend";
import { ApiEventMapper } from "./api-events";
import { ApiUsageBook } from "./api-usage";
import { capabilitiesOf } from "./capabilities";
import {
  contractLabel,
  detectServer,
  httpContractProbe,
  type ContractSetting,
  type OpencodeContract,
} from "./contract";
import { EventStream } from "./event-stream";
import { type AnswerContext, answerInterrupt, declineStale } from "./interrupt-answers";
import { handleApiFrame, handleFrame, type FrameContext } from "./frames";
import { SessionLoader } from "./load-session";
import { PendingRequests } from "./pending";
import { Reconciler } from "./reconcile";
import { createTimedFetch } from "./timed-fetch";
import { createV1Client, V1Backend } from "./v1-backend";
import { interruptBlocks } from "@/lib/timeline/selectors";

export interface OpencodeAdapterOptions {
  id: string;
  label: string;
  baseUrl?: string;
  username?: string;
  password?: string;
  directory?: string;
  embedded?: EmbeddedOpencode;
  /** How long a new event stream may stay silent before it is given up and tried again (tests shorten it). */
  firstFrameMs?: number;
  /** Which server contract to speak (docs/backends/opencode.md): detected unless forced. */
  contract?: ContractSetting;
}

/** Page loads re-read the pending lists at most this often. */
const REFRESH_INTERVAL_MS = 3_000;
const REQUEST_TIMEOUT_MS = 30_000;
const HEALTH_TIMEOUT_MS = 5_000;

const timedFetch = createTimedFetch(REQUEST_TIMEOUT_MS);

/**
 * OpenCode server adapter (docs/backends/opencode.md): REST through `@opencode-ai/sdk`, one `/global/event`
 * subscription per server shared by every browser, reconnect with backoff and reconciliation.
 */
export class OpencodeAdapter implements BackendAdapter {
  readonly id: string;
  /** History comes from OpenCode's REST API: reading it changes nothing (the search backfill may). */
  readonly passiveHistory = true;
  private client: OpencodeClient | undefined;
  private baseUrl: string | undefined;
  private status: BackendStatus = "connecting";
  private error: string | undefined;
  private version: string | undefined;
  private stopped = false;
  /** Live status of every session the stream told us about (OpenCode omits idle ones). */
  private statuses = new Map<string, { status: SessionStatus; detail?: string }>();
  private directories = new Map<string, string>();
  private requests: PendingRequests;
  /** The contract spoken with the current server (undefined until detected). */
  private contract: OpencodeContract | undefined;
  private v1: V1Backend;
  private v2: ApiBackend | undefined;
  private v2Events: ApiEventMapper;
  private apiUsage = new ApiUsageBook();
  private authHeaders: Record<string, string> = {};
  private stream: EventStream;
  private reconciler: Reconciler;
  private frames: FrameContext;
  private loader: SessionLoader;

  constructor(
    private opts: OpencodeAdapterOptions,
    private sink: EventSink,
  ) {
    this.id = opts.id;
    this.baseUrl = opts.baseUrl?.replace(/\/$/, "");
    // Never in an answer or an error message: see server/redaction/redact.ts.
    registerSecret(opts.password);
    registerSecret(opts.embedded?.password);
    this.requests = new PendingRequests({
      backendId: opts.id,
      sink,
      ...(opts.directory ? { home: opts.directory } : {}),
      directories: this.directories,
      // One directory's pending requests, in the contract spoken.
      list: (directory) => (this.v2 ? this.v2.pending(directory) : this.v1.pending(directory)),
      parentOf: async (sessionId) => (await this.getSession(sessionId)).parentId ?? null,
      stopped: () => this.stopped,
    });
    this.v2Events = new ApiEventMapper(opts.id);
    this.frames = {
      backendId: opts.id,
      sink,
      statuses: this.statuses,
      directories: this.directories,
      requests: this.requests,
      apiEvents: this.v2Events,
      apiUsage: this.apiUsage,
      statusOf: (sessionId) => this.statusOf(sessionId),
      getSession: (sessionId) => this.getSession(sessionId),
      loadSession: (sessionId) => this.loadSession(sessionId),
    };
    this.v1 = new V1Backend({
      label: opts.label,
      client: () => this.client,
      directories: this.directories,
      toSession: (raw) => this.toSession(raw),
    });
    this.stream = new EventStream({
      backendId: opts.id,
      stopped: () => this.stopped,
      options: opts,
      client: () => this.client,
      detected: () => this.contract !== undefined,
      detect: () => this.detect(),
      api: () => (this.contract === "api" ? this.v2 : undefined),
      connect: (url) => this.connect(url),
      setStatus: (status, error) => this.setStatus(status, error),
      connected: () => this.onConnected(),
      frame: (frame) => handleFrame(this.frames, frame),
      apiFrame: (frame) => handleApiFrame(this.frames, frame),
      lost: () => this.reconciler.noteCutOff(),
    });
    this.reconciler = new Reconciler({
      backendId: opts.id,
      sink,
      statuses: this.statuses,
      stopped: () => this.stopped,
      loadSession: (sessionId) => this.loadSession(sessionId),
      liveStatuses: () => this.liveStatuses(),
      refreshPending: () => this.requests.refresh(),
      dropStaleRequests: (sessionId) => declineStale(this.answerContext(), sessionId),
    });
    this.loader = new SessionLoader({
      statuses: this.statuses,
      requests: this.requests,
      apiUsage: this.apiUsage,
      v1: this.v1,
      v2: () => this.v2,
      connected: () => this.client !== undefined,
      liveStatuses: () => this.liveStatuses(),
      statusOf: (sessionId) => this.statusOf(sessionId),
      getSession: (sessionId) => this.getSession(sessionId),
      loadMessages: (sessionId, q) => this.loadMessages(sessionId, q),
      isCutOff: (sessionId) => this.reconciler.isCutOff(sessionId),
    });
  }

  info(): Backend {
    return {
      id: this.id,
      kind: "opencode",
      label: this.opts.label,
      status: this.status,
      ...(this.error ? { error: redactSecrets(this.error) } : {}),
      capabilities: capabilitiesOf(this.contract, this.v2?.compactUnavailable === true),
      ...(this.contract
        ? { protocol: contractLabel(this.contract, this.opts.contract ?? "auto", this.v2?.generation) }
        : {}),
      ...(this.v2?.saved ? { savedRules: this.v2.saved } : {}),
      ...(this.baseUrl ? { location: redactSecrets(this.baseUrl) } : {}),
      ...(this.version ? { version: this.version } : {}),
      ...(this.opts.embedded ? { embedded: true } : {}),
    };
  }

  async start(): Promise<void> {
    this.stopped = false;
    if (this.opts.embedded) {
      this.setStatus("connecting");
      const embedded = this.opts.embedded;
      embedded
        .start()
        .then((url) => this.connect(url))
        .catch((err: unknown) => {
          // It is tried again with backoff; connect as soon as one of those tries succeeds.
          this.setStatus("down", `Could not start opencode: ${describeError(err)}`);
          void embedded.whenReady().then((url) => {
            if (!this.stopped) this.connect(url);
          });
        });
      return;
    }
    if (!this.baseUrl) throw new Error("opencode backend needs a baseUrl");
    this.connect(this.baseUrl);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.stream.abort();
    await this.opts.embedded?.stop();
  }

  /* ------------------------------------------------------------------ connection */

  private connect(url: string) {
    this.baseUrl = url.replace(/\/$/, "");
    const username = this.opts.embedded?.username ?? this.opts.username ?? "opencode";
    const password = this.opts.embedded?.password ?? this.opts.password;
    const headers: Record<string, string> = {};
    if (password) headers.authorization = `Basic ${Buffer.from(`${username}:${password}`).toString("base64")}`;
    if (this.authHeaders.authorization !== headers.authorization || this.v2?.baseUrlIs(this.baseUrl) === false) {
      this.contract = undefined;
      this.v2 = undefined;
    }
    this.authHeaders = headers;
    this.client = createV1Client(this.baseUrl, headers, this.opts.directory, timedFetch);
    this.stream.start();
  }

  private setStatus(status: BackendStatus, error?: string) {
    if (this.status === status && this.error === error) return;
    this.status = status;
    this.error = error;
    this.sink.backendChanged(this.info());
  }

  /** Decides the contract with this server (a forced setting wins) and builds its client. */
  private async detect(): Promise<void> {
    const base = this.baseUrl!;
    const { contract, generation } = await detectServer(
      this.opts.contract ?? "auto",
      httpContractProbe(base, this.authHeaders),
    );
    this.contract = contract;
    if (generation) this.v2Events.setGeneration(generation);
    this.v2 =
      contract === "api"
        ? new ApiBackend(base, this.authHeaders, timedFetch, this.opts.label, this.id, {
            ...(generation ? { generation } : {}),
            forms: this.v2Events.forms,
            ...(this.opts.directory ? { directory: this.opts.directory } : {}),
          })
        : undefined;
    log.info("opencode contract", { backend: this.id, contract, generation, setting: this.opts.contract ?? "auto" });
    this.sink.backendChanged(this.info());
  }

  /**
   * Reads the rules "always" saved on an `/api` server (`GET /api/permission/saved`) for the
   * backend's details. Informative: a server that cannot answer keeps the last list shown.
   */
  private refreshSavedRules(): void {
    const v2 = this.v2;
    if (!v2) return;
    void v2
      .readSavedRules()
      .then((changed) => {
        if (changed && v2 === this.v2) this.sink.backendChanged(this.info());
      })
      .catch((err: unknown) =>
        log.debug("opencode saved rules unread", { backend: this.id, error: describeError(err) }),
      );
  }

  private async onConnected() {
    log.debug("opencode event stream open", { backend: this.id });
    this.setStatus("ready");
    this.refreshSavedRules();
    // OpenCode's stream has no replay: reload whatever could have changed while we were away.
    this.reconciler.reconnected();
    // The version is informative only: never let a slow health check hold the stream's frames.
    const client = this.client!;
    void V1Backend.version(client, HEALTH_TIMEOUT_MS)
      .then((version) => {
        if (version && version !== this.version && client === this.client) {
          this.version = version;
          this.sink.backendChanged(this.info());
        }
      })
      .catch(() => undefined);
  }

  /** Every session's live status (V1: `/session/status`; `/api`: the running ones of `/api/session/active`). */
  private async liveStatuses(): Promise<unknown> {
    if (this.v2) {
      const running = await this.v2.statuses();
      return Object.fromEntries(Object.keys(running).map((sid) => [sid, { type: "busy" }]));
    }
    return this.v1.liveStatuses();
  }

  private lastRefresh = 0;

  /** A page load's re-read of the pending lists: at most one per few seconds. */
  async refreshInterrupts(): Promise<void> {
    if (this.status !== "ready" || !this.client) return;
    if (Date.now() - this.lastRefresh < REFRESH_INTERVAL_MS) return;
    this.lastRefresh = Date.now();
    return this.requests.refresh();
  }

  pendingInterrupts(): Interrupt[] {
    return this.requests.list();
  }

  async answerInterrupt(sessionId: string, interruptId: string, answer: InterruptAnswer): Promise<void> {
    return answerInterrupt(this.answerContext(), sessionId, interruptId, answer);
  }

  private answerContext(): AnswerContext {
    return {
      requests: this.requests,
      v1: this.v1,
      v2: () => this.v2,
      apiEvents: this.v2Events,
      ruleSaved: () => this.refreshSavedRules(),
    };
  }

  private statusOf(sessionId: string): SessionStatus {
    for (const it of this.requests.list()) if (interruptBlocks(it, sessionId)) return "waiting";
    return this.statuses.get(sessionId)?.status ?? "idle";
  }

  /* ------------------------------------------------------------------ REST */

  private toSession(raw: unknown): Session {
    const s = toSession(raw, this.id);
    if (!s) throw ApiError.upstream("OpenCode returned a malformed session");
    return this.adopt(s);
  }

  /** Records what the adapter keeps of a session (directory, parent) and stamps its live status. */
  private adopt(s: Session): Session {
    if (s.directory) this.directories.set(s.id, s.directory);
    this.requests.parents.set(s.id, s.parentId ?? null);
    s.status = this.statusOf(s.id);
    const st = this.statuses.get(s.id);
    if (st?.detail) s.statusDetail = st.detail;
    return s;
  }

  async listSessions(q: { search?: string; limit: number; cursor?: string }) {
    if (this.v2) {
      const page = await this.v2.listSessions(q, this.opts.directory);
      return { ...page, items: page.items.map((s) => this.adopt(s)) };
    }
    return this.v1.listSessions(q);
  }

  async createSession(input: CreateSessionBody): Promise<Session> {
    if (this.v2) return this.adopt(await this.v2.createSession(input, this.opts.directory));
    return this.v1.createSession(input);
  }

  async getSession(sessionId: string): Promise<Session> {
    if (!/^ses_[A-Za-z0-9]+$/.test(sessionId)) throw ApiError.notFound(`Unknown session: ${sessionId}`);
    if (this.v2) return this.adopt(await this.v2.getSession(sessionId));
    return this.v1.getSession(sessionId);
  }

  async renameSession(sessionId: string, title: string): Promise<Session> {
    return this.v1.renameSession(sessionId, title);
  }

  async deleteSession(sessionId: string): Promise<void> {
    await this.v1.deleteSession(sessionId);
    this.statuses.delete(sessionId);
  }

  async loadMessages(
    sessionId: string,
    q: { before?: string; limit: number },
  ): Promise<{ items: Message[]; nextCursor?: string }> {
    return this.v2 ? this.v2.loadMessages(sessionId, q) : this.v1.loadMessages(sessionId, q);
  }

  async loadSession(sessionId: string): Promise<LoadedSession> {
    return this.loader.load(sessionId);
  }

  async prompt(sessionId: string, body: PromptBody): Promise<void> {
    if (this.v2) return this.v2.prompt(sessionId, body, await this.getSession(sessionId));
    return this.v1.prompt(sessionId, body);
  }

  async findFiles(sessionId: string, query: string, limit: number): Promise<string[]> {
    // Scoped to the session's directory, as every other call (known once the session was read).
    if (!this.directories.has(sessionId)) await this.getSession(sessionId);
    const directory = this.directories.get(sessionId);
    const found = this.v2
      ? await this.v2.findFiles(query, limit, directory)
      : await this.v1.findFiles(sessionId, query, limit);
    return (Array.isArray(found) ? found : []).flatMap((p: unknown) => {
      if (typeof p !== "string" || !p) return [];
      // Relative to the session's directory, as the composer inserts them.
      if (nodePath.isAbsolute(p))
        return directory && p.startsWith(`${directory}/`) ? [p.slice(directory.length + 1)] : [];
      return [p];
    });
  }

  async abort(sessionId: string): Promise<void> {
    if (this.v2) await this.v2.interrupt(sessionId);
    else await this.v1.abort(sessionId);
    void this.reconciler.settleStopped(sessionId);
  }

  async models(): Promise<ModelList> {
    if (this.v2) return this.v2.models(this.opts.directory);
    return this.v1.models();
  }

  async agents(): Promise<AgentList> {
    if (this.v2) return this.v2.agents(this.opts.directory);
    return this.v1.agents();
  }

  async diff(sessionId: string, messageId?: string): Promise<FileDiff[]> {
    return this.v1.diff(sessionId, messageId);
  }

  async fork(sessionId: string, messageId?: string): Promise<Session> {
    await this.getSession(sessionId);
    return this.v1.fork(sessionId, messageId);
  }

  async revert(sessionId: string, messageId: string): Promise<Session> {
    await this.getSession(sessionId);
    if (this.v2) {
      if (!/^msg_[A-Za-z0-9]+$/.test(messageId)) throw ApiError.notFound(`Unknown message: ${messageId}`);
      await this.v2.requireMessage(sessionId, messageId).catch((err: unknown) => {
        throw isApiError(err) && err.code === "not_found" ? ApiError.notFound(`Unknown message: ${messageId}`) : err;
      });
      await this.v2.revertStage(sessionId, messageId);
      return this.getSession(sessionId);
    }
    return this.v1.revert(sessionId, messageId);
  }

  async unrevert(sessionId: string): Promise<Session> {
    if (this.v2) {
      await this.v2.revertClear(sessionId);
      return this.getSession(sessionId);
    }
    return this.v1.unrevert(sessionId);
  }

  async compact(sessionId: string, model?: ModelRef): Promise<void> {
    // `/api` compacts with the session's own model. A server that answers it cannot (1.18) loses the
    // action: the backend's capabilities change and the console offers it no more.
    if (this.v2) {
      const v2 = this.v2;
      try {
        return await v2.compact(sessionId);
      } finally {
        if (v2.compactUnavailable) this.sink.backendChanged(this.info());
      }
    }
    let m = model?.provider ? model : undefined;
    if (!m) {
      const s = await this.getSession(sessionId);
      if (s.model?.provider) m = s.model;
    }
    if (!m) m = (await this.models()).default;
    if (!m?.provider) throw ApiError.conflict("No model to compact with: pick a model first");
    await this.v1.compact(sessionId, { provider: m.provider, id: m.id });
  }

  async children(sessionId: string): Promise<Session[]> {
    return this.v1.children(sessionId);
  }
}
