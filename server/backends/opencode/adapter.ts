import "server-only";
import nodePath from "node:path";
import { createOpencodeClient, type OpencodeClient } from "@opencode-ai/sdk/v2/client";
import type {
  Backend,
  BackendStatus,
  Capabilities,
  FileDiff,
  Interrupt,
  Message,
  ModelRef,
  Session,
  SessionStatus,
  Usage,
} from "@/lib/model";
import type { AgentList, CreateSessionBody, InterruptAnswer, ModelList, PromptBody } from "@/lib/api";
import { redactSecrets, registerSecret } from "../../auth/redact";
import { ApiError, describeError, isApiError } from "../../errors";
import { log } from "../../log";
import type { EmbeddedOpencode } from "../../processes/opencode-serve";
import type { BackendAdapter, EventSink, LoadedSession } from "../types";
import {
  keepShownText,
  normalizeEvent,
  settleIdle,
  toAgentList,
  toFileDiffs,
  toModelList,
  toMessage,
  toSession,
  toPermissionInterrupt,
  toQuestionInterrupt,
  toStatus,
  toTodos,
  unwrapFrame,
} from "./normalize";
import { ApiBackend } from "./api-backend";
import { ApiEventMapper, sumApiUsage } from "./normalize-api";
import {
  contractLabel,
  detectContract,
  httpContractProbe,
  type ContractSetting,
  type OpencodeContract,
} from "./contract";
import { questionAnswers } from "../shared/answers";
import { PendingRequests } from "./pending";
import { createTimedFetch } from "./timed-fetch";
import { interruptBlocks, isBusy } from "@/lib/timeline/selectors";

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
const PAGE = 100;
/** `/api`: how many pages of history are read to add up a session's usage (beyond, none is shown). */
const USAGE_PAGES = 50;
/** `/api`: how many sessions' per-message usage is kept for the live total. */
const USAGE_SESSIONS = 200;
const REQUEST_TIMEOUT_MS = 30_000;
const WATCHDOG_MS = 35_000; // OpenCode sends server.heartbeat every 10 s
/**
 * OpenCode answers `/global/event` with `server.connected` at once. A server that has bound its port
 * but is not ready yet (a restart) accepts the request and never answers it: without this bound the
 * stream would wait out the whole heartbeat watchdog before trying again.
 */
const FIRST_FRAME_MS = 8_000;
const HEALTH_TIMEOUT_MS = 5_000;
const MAX_BACKOFF_MS = 5_000;
/** A reconcile that fails is tried this many times on the same stream (about half a minute). */
const RECONCILE_TRIES = 8;
/** How a reply that OpenCode left unfinished (no completion time, no error, its session idle) reads. */
const CUT_OFF_ERROR = { name: "TurnInterrupted", message: "OpenCode stopped during this reply" } as const;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const CAPABILITIES: Capabilities = {
  fork: true,
  forkMessages: true,
  revert: true,
  diff: true,
  compact: true,
  models: true,
  share: false,
  history: true,
  abort: true,
  rename: true,
  delete: true,
  search: true,
  directories: true,
  agents: true,
  todos: true,
  children: true,
  // File parts (`data:` URLs): images go to the model as images, text files as their text.
  attachments: { images: true, files: true },
  // `@` mentions: OpenCode's own file search (`/find/file`, `/api/fs/find`); a picked file goes as a
  // `file://` part, which OpenCode reads itself and attaches (as its TUI does).
  mentions: { search: "backend", carry: "file" },
  interrupts: { permission: true, question: true, input: false },
};

/**
 * What the `/api` contract can do. It has no fork, no rename, no delete, no children listing, no
 * per-turn patches and no todo read-back: those actions are hidden, never faked.
 */
const API_CAPABILITIES: Capabilities = {
  ...CAPABILITIES,
  fork: false,
  forkMessages: false,
  rename: false,
  delete: false,
  children: false,
  diff: false,
  // Sessions get no title on create (and no rename): OpenCode titles them itself, so a title
  // search finds nothing the user named.
  search: false,
  // `@` mentions stay `@path` in the prompt's text, which OpenCode's agent reads with its own tools. A
  // `file://` attachment is not read into text on /api: OpenCode 1.18 hands it to the provider as
  // media (by the file's extension), and its OpenAI Chat lowering takes images only ("OpenAI Chat
  // does not support media type text/markdown"), so the turn would fail.
  mentions: { search: "backend", carry: "text" },
};

const timedFetch = createTimedFetch(REQUEST_TIMEOUT_MS);

type Result<T> = { data?: T; error?: unknown; response?: Response };

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
  private eventsAbort: AbortController | undefined;
  private loop: Promise<void> | undefined;
  /** Live status of every session the stream told us about (OpenCode omits idle ones). */
  private statuses = new Map<string, { status: SessionStatus; detail?: string }>();
  private directories = new Map<string, string>();
  private requests: PendingRequests;
  /** The contract spoken with the current server (undefined until detected). */
  private contract: OpencodeContract | undefined;
  private v2: ApiBackend | undefined;
  private v2Events: ApiEventMapper;
  /**
   * `/api` (1.18) reports a session's own tokens and cost as zero: for the sessions loaded here, the
   * usage of each assistant message, read on load and kept current by the stream's `step.ended`
   * frames, summed into the session's usage (sumApiUsage).
   */
  private apiUsage = new Map<string, Map<string, Usage>>();
  /** The id of the last `/api/event` frame, sent back as Last-Event-ID on a reconnect. */
  private lastEventId: string | undefined;
  private authHeaders: Record<string, string> = {};

  constructor(
    private opts: OpencodeAdapterOptions,
    private sink: EventSink,
  ) {
    this.id = opts.id;
    this.baseUrl = opts.baseUrl?.replace(/\/$/, "");
    // Never in an answer or an error message: see server/auth/redact.ts.
    registerSecret(opts.password);
    registerSecret(opts.embedded?.password);
    this.requests = new PendingRequests({
      backendId: opts.id,
      sink,
      ...(opts.directory ? { home: opts.directory } : {}),
      directories: this.directories,
      list: (directory) => this.pendingList(directory),
      parentOf: async (sessionId) => (await this.getSession(sessionId)).parentId ?? null,
      stopped: () => this.stopped,
    });
    this.v2Events = new ApiEventMapper(opts.id);
  }

  info(): Backend {
    return {
      id: this.id,
      kind: "opencode",
      label: this.opts.label,
      status: this.status,
      ...(this.error ? { error: redactSecrets(this.error) } : {}),
      capabilities:
        this.contract !== "api"
          ? CAPABILITIES
          : this.v2?.compactUnavailable
            ? { ...API_CAPABILITIES, compact: false }
            : API_CAPABILITIES,
      ...(this.contract ? { protocol: contractLabel(this.contract, this.opts.contract ?? "auto") } : {}),
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
    this.eventsAbort?.abort();
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
    this.client = createOpencodeClient({
      baseUrl: this.baseUrl,
      headers,
      throwOnError: true,
      ...(this.opts.directory ? { directory: this.opts.directory } : {}),
      fetch: timedFetch,
    });
    this.loop ??= this.runEvents().finally(() => (this.loop = undefined));
  }

  private setStatus(status: BackendStatus, error?: string) {
    if (this.status === status && this.error === error) return;
    this.status = status;
    this.error = error;
    this.sink.backendChanged(this.info());
  }

  private async runEvents(): Promise<void> {
    let attempt = 0;
    // A server that answers slowly (a loaded machine, a cold start) is given longer each time the
    // first frame is late, so a bound set too tight for it cannot keep the stream from ever opening.
    let firstFrameLate = 0;
    while (!this.stopped) {
      const client = this.client;
      if (this.opts.embedded && !this.opts.embedded.url) {
        this.setStatus("down", "opencode is restarting");
        const url = await this.opts.embedded.whenReady();
        this.connect(url);
        continue;
      }
      if (!client) return;
      const ac = new AbortController();
      this.eventsAbort = ac;
      let watchdog: ReturnType<typeof setTimeout> | undefined;
      const kick = (ms: number, why: string) => {
        if (watchdog) clearTimeout(watchdog);
        watchdog = setTimeout(() => ac.abort(new Error(why)), ms);
      };
      let lastError: string | undefined;
      let connected = false;
      try {
        // Not reachable yet, or not answering: this counts as a failed connection and is retried.
        if (!this.contract) await this.detect();
        const firstFrameMs = Math.min(WATCHDOG_MS, (this.opts.firstFrameMs ?? FIRST_FRAME_MS) * (1 + firstFrameLate));
        kick(firstFrameMs, "opencode accepted the event stream but sent nothing (still starting?)");
        log.debug("opening the opencode event stream", { backend: this.id, attempt, firstFrameMs });
        if (this.contract === "api" && this.v2) {
          await this.v2.events({
            signal: ac.signal,
            ...(this.lastEventId ? { lastEventId: this.lastEventId } : {}),
            onChunk: () => kick(WATCHDOG_MS, "no heartbeat from opencode"),
            onFrame: (frame, id) => {
              if (id) this.lastEventId = id;
              if (!connected) {
                connected = true;
                attempt = 0;
                firstFrameLate = 0;
                void this.onConnected();
              }
              this.handleApiFrame(frame);
            },
          });
          throw new Error("the /api event stream ended");
        }
        const { stream } = await client.global.event({
          signal: ac.signal,
          sseMaxRetryAttempts: 1,
          onSseError: (err: unknown) => {
            lastError = describeError(err);
          },
        });
        for await (const frame of stream) {
          kick(WATCHDOG_MS, "no heartbeat from opencode");
          if (!connected) {
            connected = true;
            attempt = 0;
            firstFrameLate = 0;
            await this.onConnected();
          }
          this.handleFrame(frame);
        }
      } catch (err) {
        lastError = describeError(err);
      } finally {
        if (watchdog) clearTimeout(watchdog);
      }
      if (this.stopped) return;
      // Only the watchdog aborts a stream (a stop returned above): unconnected, its first frame was late.
      if (!connected && ac.signal.aborted) firstFrameLate++;
      if (connected) this.noteCutOff();
      const wait = Math.min(MAX_BACKOFF_MS, 250 * 2 ** attempt++);
      this.setStatus(
        attempt > 2 ? "down" : "connecting",
        lastError ? `Event stream lost: ${lastError}` : "Event stream closed",
      );
      log.warn("opencode event stream lost; reconnecting", { backend: this.id, error: lastError, inMs: wait });
      await sleep(wait);
    }
  }

  /** Decides the contract with this server (a forced setting wins) and builds its client. */
  private async detect(): Promise<void> {
    const base = this.baseUrl!;
    const contract = await detectContract(this.opts.contract ?? "auto", httpContractProbe(base, this.authHeaders));
    this.contract = contract;
    this.v2 =
      contract === "api" ? new ApiBackend(base, this.authHeaders, timedFetch, this.opts.label, this.id) : undefined;
    log.info("opencode contract", { backend: this.id, contract, setting: this.opts.contract ?? "auto" });
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
    void this.reconcileUntilDone(++this.streamGeneration);
    // The version is informative only: never let a slow health check hold the stream's frames.
    const client = this.client!;
    void client.global
      .health({ signal: AbortSignal.timeout(HEALTH_TIMEOUT_MS) })
      .then((health) => {
        const version = (health.data as { version?: string } | undefined)?.version;
        if (version && version !== this.version && client === this.client) {
          this.version = version;
          this.sink.backendChanged(this.info());
        }
      })
      .catch(() => undefined);
  }

  /**
   * Sessions that were running when the event stream was lost. They stay here until a reconcile has
   * read them back from the server, however many reconnects that takes: whether the hub still shows
   * them busy by then (another reconnect may have published their idle status already) must not
   * decide whether a cut reply is reported.
   */
  private cutOff = new Set<string>();

  private noteCutOff() {
    for (const [sid, st] of this.statuses) if (isBusy(st.status)) this.cutOff.add(sid);
    for (const sid of this.sink.openSessions(this.id))
      if (isBusy(this.sink.sessionState?.(this.id, sid)?.session?.status)) this.cutOff.add(sid);
  }

  /** Counts event-stream connections: a reconcile retried for one stops when another replaces it. */
  private streamGeneration = 0;

  /**
   * Reconciles after a (re)connect, and tries again while that stream lasts if a request failed (a
   * server still warming up, a request lost on the way): a failed reconcile would otherwise leave a
   * cut reply unreported until the next reconnect, which may never come.
   */
  private async reconcileUntilDone(generation: number) {
    for (
      let attempt = 0;
      attempt < RECONCILE_TRIES && !this.stopped && generation === this.streamGeneration;
      attempt++
    ) {
      log.debug("reconciling opencode sessions", { backend: this.id, attempt, cutOff: [...this.cutOff] });
      try {
        if (await this.reconcileAll()) return;
      } catch (err) {
        log.warn("reconcile failed", { backend: this.id, error: describeError(err) });
      }
      await sleep(Math.min(MAX_BACKOFF_MS, 500 * 2 ** attempt));
    }
  }

  /** Reloads the open sessions and the live statuses; false if a session could not be reloaded. */
  private async reconcileAll(): Promise<boolean> {
    // Sessions the console showed running: if OpenCode now has them idle with an unfinished reply,
    // the turn died with the server (killed, crashed) and the user is told so.
    this.noteCutOff();
    const wasBusy = new Set(this.cutOff);
    const [statusRes] = await Promise.all([this.liveStatuses(), this.requests.refresh()]);
    const live = (statusRes ?? {}) as Record<string, unknown>;
    log.debug("read opencode's live statuses", { backend: this.id, busy: Object.keys(live) });
    const seen = new Set<string>();
    for (const [sid, raw] of Object.entries(live)) {
      seen.add(sid);
      this.applyStatus(sid, toStatus(raw));
    }
    for (const [sid, st] of this.statuses)
      if (!seen.has(sid) && st.status !== "idle") this.applyStatus(sid, { status: "idle" });
    // A cut-off session nobody has open is settled when it is opened (loadSession marks its reply).
    const open = this.sink.openSessions(this.id);
    for (const sid of this.cutOff)
      if (!open.includes(sid) && !isBusy(this.statuses.get(sid)?.status)) this.cutOff.delete(sid);
    let whole = true;
    for (const sid of open) {
      try {
        let fresh = await this.loadSession(sid);
        const ended = wasBusy.has(sid) && !isBusy(fresh.session.status);
        if (ended) fresh = this.keepCutReply(sid, fresh);
        fresh = this.keepShownCutText(sid, fresh);
        this.sink.reconcile(this.id, sid, fresh);
        const last = fresh.messages.at(-1);
        if (ended && last?.role === "assistant" && last.error?.name === CUT_OFF_ERROR.name) {
          this.sink.publish(this.id, sid, {
            type: "error",
            code: CUT_OFF_ERROR.name,
            message: `${CUT_OFF_ERROR.message}. Send a prompt to continue.`,
          });
        }
        if (!isBusy(fresh.session.status)) this.cutOff.delete(sid);
      } catch (err) {
        log.warn("could not reconcile session", { sessionId: sid, error: describeError(err) });
        whole = false;
      }
    }
    return whole;
  }

  /**
   * A session that was running when the stream was lost, read back idle: OpenCode stores a reply's
   * parts as it goes, but a process killed mid-reply can take the unsaved end with it, and on a
   * loaded machine the whole reply. When the history read back no longer holds the unfinished reply
   * the console showed live, that reply is kept, marked as cut (settleIdle marks one it still holds).
   */
  private keepCutReply(sid: string, fresh: LoadedSession): LoadedSession {
    const shown = this.sink
      .sessionState?.(this.id, sid)
      ?.messages.filter((m) => m.role === "assistant")
      .at(-1);
    if (!shown || shown.completedAt !== undefined || shown.error) return fresh;
    // Held by the server (settleIdle has dealt with it), or followed by a later reply: not the cut one.
    if (fresh.messages.some((m) => m.id === shown.id || (m.role === "assistant" && m.createdAt > shown.createdAt)))
      return fresh;
    return { ...fresh, messages: [...fresh.messages, { ...shown, error: { ...CUT_OFF_ERROR } }] };
  }

  /**
   * Cut replies read back from the server keep the text the console showed of them: OpenCode stores
   * a text part's text only when the part ends, so its copy of a cut reply is shorter (often empty).
   * Applied at every reconcile, not only the one that found the cut: a later reconnect must not
   * shorten the reply either.
   */
  private keepShownCutText(sid: string, fresh: LoadedSession): LoadedSession {
    const state = this.sink.sessionState?.(this.id, sid);
    if (!state) return fresh;
    let messages: Message[] | undefined;
    fresh.messages.forEach((m, i) => {
      if (m.role !== "assistant" || m.error?.name !== CUT_OFF_ERROR.name) return;
      const shown = state.messages.find((x) => x.id === m.id);
      const kept = shown ? keepShownText(m, shown) : m;
      if (kept !== m) (messages ??= [...fresh.messages])[i] = kept;
    });
    return messages ? { ...fresh, messages } : fresh;
  }

  /** Every session's live status (V1: `/session/status`; `/api`: the running ones of `/api/session/active`). */
  private async liveStatuses(): Promise<unknown> {
    if (this.v2) {
      const running = await this.v2.statuses();
      return Object.fromEntries(Object.keys(running).map((sid) => [sid, { type: "busy" }]));
    }
    return this.call(() => this.client!.session.status());
  }

  /** One directory's pending requests, in the contract spoken. */
  private async pendingList(directory: string | undefined): Promise<Interrupt[]> {
    if (this.v2) return this.v2.pending(directory);
    const q = directory ? { directory } : undefined;
    const api = this.api();
    const [perms, questions] = await Promise.all([
      this.call(() => api.permission.list(q)),
      this.call(() => api.question.list(q)),
    ]);
    return [
      ...((perms ?? []) as unknown[]).flatMap((p) => toPermissionInterrupt(p) ?? []),
      ...((questions ?? []) as unknown[]).flatMap((x) => toQuestionInterrupt(x) ?? []),
    ];
  }

  private applyStatus(sessionId: string, st: { status: SessionStatus; detail?: string }) {
    const prev = this.statuses.get(sessionId);
    if (prev && prev.status === st.status && prev.detail === st.detail) return;
    this.statuses.set(sessionId, st);
    this.sink.publish(this.id, sessionId, {
      type: "session.status",
      status: st.status,
      ...(st.detail ? { detail: st.detail } : {}),
    });
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
    let it = this.requests.get(interruptId);
    if (!it && !this.requests.wasResolved(interruptId)) {
      await this.requests.refresh();
      it = this.requests.get(interruptId);
    }
    if (!it) {
      if (this.requests.wasResolved(interruptId)) throw ApiError.conflict("This request was already answered");
      throw ApiError.notFound(`Unknown interrupt: ${interruptId}`);
    }
    if (!(await this.requests.audience(it.sessionId)).includes(sessionId))
      throw ApiError.notFound(`Interrupt ${interruptId} does not belong to session ${sessionId}`);
    const target = it;
    if (target.kind === "permission") {
      let reply: "once" | "always" | "reject";
      let message: string | undefined;
      if ("decision" in answer) {
        reply = answer.decision === "allow_once" ? "once" : answer.decision === "allow_always" ? "always" : "reject";
        if (answer.message && reply !== "reject")
          throw ApiError.badRequest("Feedback can only be sent with a rejection");
        message = answer.message || undefined;
      } else if ("dismiss" in answer) {
        reply = "reject";
      } else {
        throw ApiError.badRequest(
          "A permission request is answered with {decision: allow_once | allow_always | reject, message?}",
        );
      }
      if (this.v2) {
        if (reply === "reject" && message) this.v2Events.rejectingWithFeedback(target.id);
        await this.v2.replyPermission(target.sessionId, target.id, reply, message);
        if (reply === "always") this.refreshSavedRules();
      } else
        await this.call(() =>
          this.api().permission.reply({
            requestID: target.id,
            reply,
            ...(message ? { message } : {}),
            ...this.dir(target.sessionId),
          }),
        );
      await this.requests.resolve(target, reply);
      return;
    }
    if (target.kind === "question") {
      if ("dismiss" in answer) {
        if (this.v2) await this.v2.rejectQuestion(target.sessionId, target.id);
        else await this.call(() => this.api().question.reject({ requestID: target.id, ...this.dir(target.sessionId) }));
        await this.requests.resolve(target, "rejected");
        return;
      }
      const answers = questionAnswers(target, answer);
      if (this.v2) await this.v2.replyQuestion(target.sessionId, target.id, answers);
      else
        await this.call(() =>
          this.api().question.reply({ requestID: target.id, answers, ...this.dir(target.sessionId) }),
        );
      await this.requests.resolve(target, "answered");
      return;
    }
    throw ApiError.badRequest("OpenCode has no free-text input requests");
  }

  private handleFrame(frame: unknown) {
    try {
      const f = unwrapFrame(frame);
      if (!f) return;
      if (f.type === "session.deleted") {
        const s = toSession(f.properties.info, this.id);
        if (s)
          this.sink.openSessions(this.id).includes(s.id) &&
            this.sink.publish(this.id, s.id, { type: "session.status", status: "idle" });
        return;
      }
      for (const { sessionId, event } of normalizeEvent(f.type, f.properties, this.id)) {
        switch (event.type) {
          case "session.status":
            this.statuses.set(sessionId, { status: event.status, ...(event.detail ? { detail: event.detail } : {}) });
            break;
          case "session.updated":
            if (event.session.directory) this.directories.set(sessionId, event.session.directory);
            this.requests.parents.set(sessionId, event.session.parentId ?? null);
            event.session.status = this.statusOf(sessionId);
            break;
          case "interrupt.requested":
            void this.requests.request(event.interrupt);
            continue;
          case "interrupt.resolved": {
            const it = this.requests.get(event.interruptId);
            // Already resolved here (answered through the console): the echo adds nothing.
            if (it) void this.requests.resolve(it, event.outcome);
            continue;
          }
          default:
            break;
        }
        this.sink.publish(this.id, sessionId, event);
      }
    } catch (err) {
      log.warn("skipped malformed opencode frame", { error: describeError(err) });
    }
  }

  /** One `/api/event` frame (zod-checked in normalize-api.ts): unknown or malformed ones are logged and skipped. */
  private handleApiFrame(frame: unknown) {
    try {
      const r = this.v2Events.map(frame);
      switch (r.kind) {
        case "skip":
          if (r.reason)
            log.debug(`skipped ${r.reason} opencode /api frame`, {
              backend: this.id,
              type: typeof frame === "object" && frame && "type" in frame ? String(frame.type) : undefined,
            });
          return;
        case "deleted":
          if (this.sink.openSessions(this.id).includes(r.sessionId))
            this.sink.publish(this.id, r.sessionId, { type: "session.status", status: "idle" });
          return;
        case "session": {
          // The frame's session is partial (the revert frames carry none): re-read it whole.
          const sid = r.session.id;
          if (!this.sink.openSessions(this.id).includes(sid)) return;
          if (r.reload) {
            void this.loadSession(sid)
              .then((fresh) => this.sink.reconcile(this.id, sid, fresh))
              .catch((err: unknown) =>
                log.warn("could not reload an opencode session", { sessionId: sid, error: describeError(err) }),
              );
            return;
          }
          void this.getSession(sid)
            .then((s) => this.sink.publish(this.id, sid, { type: "session.updated", session: s }))
            .catch((err: unknown) =>
              log.warn("could not re-read an opencode session", { sessionId: sid, error: describeError(err) }),
            );
          return;
        }
        case "interrupt":
          void this.requests.request(r.interrupt);
          return;
        case "resolved": {
          const it = this.requests.get(r.interruptId);
          if (it) void this.requests.resolve(it, r.outcome);
          return;
        }
        case "events":
          for (const { sessionId, event } of r.items) {
            if (event.type === "session.status") {
              if (this.statuses.get(sessionId)?.status === event.status && !event.detail) continue;
              this.statuses.set(sessionId, { status: event.status, ...(event.detail ? { detail: event.detail } : {}) });
            }
            this.sink.publish(this.id, sessionId, event);
            // A step's usage (`step.ended`) moves the session's total, which the server leaves at zero.
            const byMessage = event.type === "message.updated" ? this.apiUsage.get(sessionId) : undefined;
            if (byMessage && event.type === "message.updated" && event.message.usage) {
              byMessage.set(event.message.id, event.message.usage);
              const usage = sumApiUsage(byMessage.values());
              if (usage) this.sink.publish(this.id, sessionId, { type: "usage.updated", usage });
            }
          }
      }
    } catch (err) {
      log.warn("skipped malformed opencode /api frame", { error: describeError(err) });
    }
  }

  private statusOf(sessionId: string): SessionStatus {
    for (const it of this.requests.list()) if (interruptBlocks(it, sessionId)) return "waiting";
    return this.statuses.get(sessionId)?.status ?? "idle";
  }

  /* ------------------------------------------------------------------ REST */

  private api(): OpencodeClient {
    if (!this.client) throw ApiError.down(`${this.opts.label} is starting`);
    return this.client;
  }

  /** Runs an SDK call and maps failures: no answer → 503, upstream error → 502 (404 kept). */
  private async call<T>(fn: () => Promise<Result<T>>): Promise<T> {
    try {
      const r = await fn();
      return r.data as T;
    } catch (err) {
      if (isApiError(err)) throw err;
      const cause = (err as { cause?: { status?: number } }).cause;
      const status = cause?.status;
      const msg = describeError(err);
      if (status === 404 || /\bnot found\b/i.test(msg)) throw ApiError.notFound(msg);
      if (status === 400) throw ApiError.badRequest(`OpenCode rejected the request: ${msg}`);
      if (status) throw ApiError.upstream(`OpenCode answered ${status}: ${msg}`);
      throw ApiError.down(`${this.opts.label} is not reachable: ${msg}`);
    }
  }

  private dir(sessionId: string) {
    const d = this.directories.get(sessionId);
    return d ? { directory: d } : {};
  }

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
      const page = await this.v2.listSessions(q);
      return { ...page, items: page.items.map((s) => this.adopt(s)) };
    }
    const offset = q.cursor ? Number.parseInt(Buffer.from(q.cursor, "base64url").toString(), 10) || 0 : 0;
    const raw = await this.call(() =>
      this.api().session.list({ roots: true, limit: offset + q.limit + 1, ...(q.search ? { search: q.search } : {}) }),
    );
    const all = ((raw ?? []) as unknown[]).map((s) => this.toSession(s)).sort((a, b) => b.updatedAt - a.updatedAt);
    const items = all.slice(offset, offset + q.limit);
    const more = all.length > offset + q.limit;
    return { items, ...(more ? { nextCursor: Buffer.from(String(offset + q.limit)).toString("base64url") } : {}) };
  }

  async createSession(input: CreateSessionBody): Promise<Session> {
    if (this.v2) return this.adopt(await this.v2.createSession(input, this.opts.directory));
    const raw = await this.call(() =>
      this.api().session.create({
        ...(input.title ? { title: input.title } : {}),
        ...(input.directory ? { directory: input.directory } : {}),
        ...(input.model ? { model: { id: input.model.id, providerID: input.model.provider ?? "" } } : {}),
      }),
    );
    return this.toSession(raw);
  }

  async getSession(sessionId: string): Promise<Session> {
    if (!/^ses_[A-Za-z0-9]+$/.test(sessionId)) throw ApiError.notFound(`Unknown session: ${sessionId}`);
    if (this.v2) return this.adopt(await this.v2.getSession(sessionId));
    return this.toSession(
      await this.call(() => this.api().session.get({ sessionID: sessionId, ...this.dir(sessionId) })),
    );
  }

  async renameSession(sessionId: string, title: string): Promise<Session> {
    return this.toSession(
      await this.call(() => this.api().session.update({ sessionID: sessionId, title, ...this.dir(sessionId) })),
    );
  }

  async deleteSession(sessionId: string): Promise<void> {
    await this.call(() => this.api().session.delete({ sessionID: sessionId, ...this.dir(sessionId) }));
    this.statuses.delete(sessionId);
  }

  async loadMessages(
    sessionId: string,
    q: { before?: string; limit: number },
  ): Promise<{ items: Message[]; nextCursor?: string }> {
    if (this.v2) return this.v2.loadMessages(sessionId, q);
    let cursor: string | null = null;
    const raw = await this.call(async () => {
      const r = await this.api().session.messages({
        sessionID: sessionId,
        limit: q.limit,
        ...(q.before ? { before: q.before } : {}),
        ...this.dir(sessionId),
      });
      cursor = r.response?.headers.get("x-next-cursor") ?? null;
      return r;
    });
    const items = ((raw ?? []) as unknown[]).flatMap((m) => {
      const msg = toMessage(m);
      return msg ? [msg] : [];
    });
    return { items, ...(cursor ? { nextCursor: cursor } : {}) };
  }

  async loadSession(sessionId: string): Promise<LoadedSession> {
    const [session, page, todos] = await Promise.all([
      this.getSession(sessionId),
      this.loadMessages(sessionId, { limit: PAGE }),
      // `/api` has no todo route: its todos arrive with `todo.updated` frames.
      this.v2
        ? Promise.resolve([])
        : this.call(() => this.api().session.todo({ sessionID: sessionId, ...this.dir(sessionId) })).catch(() => []),
      this.requests.refresh(),
    ]);
    const interrupts: Interrupt[] = [];
    for (const it of this.requests.list()) {
      if (interruptBlocks(it, sessionId) || (await this.requests.audience(it.sessionId)).includes(sessionId))
        interrupts.push(it);
    }
    interrupts.sort((a, b) => a.createdAt - b.createdAt);
    session.status = this.statusOf(sessionId);
    if (this.v2 && !session.usage) {
      const usage = await this.apiSessionUsage(sessionId, page).catch((err: unknown) => {
        log.warn("could not add up an opencode session's usage", { sessionId, error: describeError(err) });
        return undefined;
      });
      if (usage) session.usage = usage;
    }
    return {
      session,
      // On `/api` the cut-off mark is kept to the sessions the stream was lost under (its messages'
      // completion times are not known to be stamped as V1's are).
      messages:
        session.status === "idle"
          ? settleIdle(page.items, !this.v2 || this.cutOff.has(sessionId) ? CUT_OFF_ERROR : undefined)
          : page.items,
      interrupts,
      todos: toTodos(todos),
      ...(page.nextCursor ? { olderCursor: page.nextCursor } : {}),
    };
  }

  /**
   * `/api`: a session's usage from its assistant messages (the first page is the one just loaded;
   * older pages are read too, up to USAGE_PAGES, beyond which no total is shown rather than a short
   * one). Keeps the per-message usage for the stream's updates.
   */
  private async apiSessionUsage(
    sessionId: string,
    first: { items: Message[]; nextCursor?: string },
  ): Promise<Usage | undefined> {
    const byMessage = new Map<string, Usage>();
    const add = (items: Message[]) => {
      for (const m of items) if (m.role === "assistant" && m.usage) byMessage.set(m.id, m.usage);
    };
    add(first.items);
    let cursor = first.nextCursor;
    for (let pages = 0; cursor; pages++) {
      if (pages >= USAGE_PAGES) return undefined;
      const page = await this.v2!.loadMessages(sessionId, { before: cursor, limit: PAGE });
      add(page.items);
      cursor = page.nextCursor;
    }
    // A step that ended while the pages were read is kept (its frame may have come first).
    for (const [id, u] of this.apiUsage.get(sessionId) ?? []) if (!byMessage.has(id)) byMessage.set(id, u);
    this.apiUsage.delete(sessionId);
    this.apiUsage.set(sessionId, byMessage);
    if (this.apiUsage.size > USAGE_SESSIONS) this.apiUsage.delete(this.apiUsage.keys().next().value!);
    return sumApiUsage(byMessage.values());
  }

  async prompt(sessionId: string, body: PromptBody): Promise<void> {
    if (this.v2) return this.v2.prompt(sessionId, body, await this.getSession(sessionId));
    const parts = body.parts.map((p) =>
      p.type === "text"
        ? { type: "text" as const, text: p.text }
        : { type: "file" as const, mime: p.mime, url: p.url, ...(p.filename ? { filename: p.filename } : {}) },
    );
    await this.call(() =>
      this.api().session.promptAsync({
        sessionID: sessionId,
        parts,
        ...(body.model ? { model: { providerID: body.model.provider ?? "", modelID: body.model.id } } : {}),
        ...(body.agent ? { agent: body.agent } : {}),
        ...this.dir(sessionId),
      }),
    );
  }

  async findFiles(sessionId: string, query: string, limit: number): Promise<string[]> {
    // Scoped to the session's directory, as every other call (known once the session was read).
    if (!this.directories.has(sessionId)) await this.getSession(sessionId);
    const directory = this.directories.get(sessionId);
    const found = this.v2
      ? await this.v2.findFiles(query, limit, directory)
      : await this.call(() =>
          this.api().find.files({ query, dirs: "false", type: "file", limit, ...this.dir(sessionId) }),
        );
    return (Array.isArray(found) ? found : []).flatMap((p: unknown) => {
      if (typeof p !== "string" || !p) return [];
      // Relative to the session's directory, as the composer inserts them.
      if (nodePath.isAbsolute(p))
        return directory && p.startsWith(`${directory}/`) ? [p.slice(directory.length + 1)] : [];
      return [p];
    });
  }

  async abort(sessionId: string): Promise<void> {
    if (this.v2) return this.v2.interrupt(sessionId);
    await this.call(() => this.api().session.abort({ sessionID: sessionId, ...this.dir(sessionId) }));
  }

  async models(): Promise<ModelList> {
    if (this.v2) return this.v2.models(this.opts.directory);
    const [providers, config] = await Promise.all([
      this.call(() => this.api().config.providers()),
      this.call(() => this.api().config.get()).catch(() => undefined),
    ]);
    return toModelList(providers, config);
  }

  async agents(): Promise<AgentList> {
    if (this.v2) return this.v2.agents(this.opts.directory);
    return toAgentList(await this.call(() => this.api().app.agents()));
  }

  async diff(sessionId: string, messageId?: string): Promise<FileDiff[]> {
    const raw = await this.call(() =>
      this.api().session.diff({
        sessionID: sessionId,
        ...(messageId ? { messageID: messageId } : {}),
        ...this.dir(sessionId),
      }),
    );
    return toFileDiffs(raw);
  }

  /** Ids and roles of every message of a session, chronological (ids sort in time order). */
  private async messageRoles(sessionId: string): Promise<{ id: string; role: string }[]> {
    const raw = await this.call(() => this.api().session.messages({ sessionID: sessionId, ...this.dir(sessionId) }));
    return ((raw ?? []) as { info?: { id?: unknown; role?: unknown } }[]).flatMap((m) =>
      typeof m.info?.id === "string" && typeof m.info.role === "string" ? [{ id: m.info.id, role: m.info.role }] : [],
    );
  }

  async fork(sessionId: string, messageId?: string): Promise<Session> {
    await this.getSession(sessionId);
    let before: string | undefined;
    if (messageId) {
      // OpenCode copies the messages strictly before `messageID` (and everything for an unknown id).
      const all = await this.messageRoles(sessionId);
      const i = all.findIndex((m) => m.id === messageId);
      if (i < 0) throw ApiError.notFound(`Unknown message: ${messageId}`);
      before = all[i]!.role === "user" ? messageId : all[i + 1]?.id;
    }
    const raw = await this.call(() =>
      this.api().session.fork({
        sessionID: sessionId,
        ...(before ? { messageID: before } : {}),
        ...this.dir(sessionId),
      }),
    );
    return this.toSession(raw);
  }

  private async requireMessage(sessionId: string, messageId: string): Promise<void> {
    if (!/^msg_[A-Za-z0-9]+$/.test(messageId)) throw ApiError.notFound(`Unknown message: ${messageId}`);
    try {
      await this.call(() =>
        this.api().session.message({ sessionID: sessionId, messageID: messageId, ...this.dir(sessionId) }),
      );
    } catch (err) {
      if (isApiError(err) && err.code === "not_found") throw ApiError.notFound(`Unknown message: ${messageId}`);
      throw err;
    }
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
    // OpenCode answers 200 and does nothing for an unknown message: check it first.
    await this.requireMessage(sessionId, messageId);
    return this.toSession(
      await this.call(() =>
        this.api().session.revert({ sessionID: sessionId, messageID: messageId, ...this.dir(sessionId) }),
      ),
    );
  }

  async unrevert(sessionId: string): Promise<Session> {
    if (this.v2) {
      await this.v2.revertClear(sessionId);
      return this.getSession(sessionId);
    }
    return this.toSession(
      await this.call(() => this.api().session.unrevert({ sessionID: sessionId, ...this.dir(sessionId) })),
    );
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
    const { provider, id } = m;
    await this.call(() =>
      this.api().session.summarize({ sessionID: sessionId, providerID: provider, modelID: id, ...this.dir(sessionId) }),
    );
  }

  async children(sessionId: string): Promise<Session[]> {
    const raw = await this.call(() => this.api().session.children({ sessionID: sessionId, ...this.dir(sessionId) }));
    return ((raw ?? []) as unknown[]).map((s) => this.toSession(s));
  }
}
