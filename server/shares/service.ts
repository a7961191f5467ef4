import "server-only";
import { randomBytes } from "node:crypto";
import {
  SHARE_EXPIRY_SECONDS,
  SharedSnapshot,
  type CreateRedactionPatternBody,
  type CreateShareBody,
  type CreatedShare,
  type ListSharesQuery,
  type RedactionPattern,
  type RedactionSettings,
  type ShareEndReason,
  type ShareInfo,
  type SharePreview,
  type SharePreviewBody,
  type ShareState,
  type ShareStreamEvent,
} from "@/lib/api";
import type { PersonRef, WireEvent } from "@/lib/model";
import type { SessionState } from "@/lib/timeline/reducer";
import { knownSecrets, secretsVersion } from "../redaction/redact";
import { BUILTIN_RULES, Redactor, kindForLabel, validateCustomPattern } from "../redaction/redactor";
import { FailureLimiter } from "../auth/failure-limiter";
import { hashShareToken, isWellFormedShareToken, newShareId, newShareToken } from "../auth/share-token";
import type { BackendRegistry } from "../backends/registry";
import { ApiError, describeError, isApiError } from "../errors";
import type { Hub } from "../hub/hub";
import type { SessionChannel } from "../hub/session-channel";
import { withOlderMessages } from "../sessions/history";
import { encodeFrame, sseResponse, type SseSink } from "../hub/sse";
import { log } from "../log";
import type { LiveStore, StoredRedactionPattern, StoredShare } from "../store/store";
import type { ShareForwarding, SharedFailures } from "./forwarding";
import { ShareEventFilter, ShareRenderer, previewRedactions, type ShareMeta } from "./view";

/** A frozen snapshot larger than this is refused (a share is not a backup). */
const MAX_FROZEN_BYTES = 25_000_000;
/** Deltas are coalesced into whole-block updates at most this often per stream. */
const FLUSH_MS = 100;
/** setTimeout's limit; longer expiries re-arm. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * How many messages a share holds at least (when the session has them): the console's own first
 * page of a session is smaller (`FIRST_PAGE_MESSAGES`, server/backends/shared/session-list.ts), so
 * a share reads older ones from the backend (docs/sharing.md).
 */
export const SHARE_HISTORY = 100;

export interface ShareServiceOptions {
  /** Replica mode: where a share whose session runs on another console is reached (./forwarding.ts). */
  remote?: ShareForwarding | undefined;
  /** Replica mode: unknown tokens counted with the other consoles. */
  sharedFailures?: SharedFailures | undefined;
  /** Unknown tokens per client address per window before it is answered 429. */
  failureLimit?: number;
  failureWindowMs?: number;
  now?: () => number;
}

export function shareState(s: StoredShare, now: number): ShareState {
  if (s.revokedAt !== undefined) return "revoked";
  if (s.expiresAt !== null && now >= s.expiresAt) return "expired";
  return "active";
}

function info(s: StoredShare, now: number): ShareInfo {
  return {
    id: s.id,
    backendId: s.backendId,
    sessionId: s.sessionId,
    sessionTitle: s.sessionTitle,
    ...(s.upToMessageId !== undefined ? { upToMessageId: s.upToMessageId } : {}),
    live: s.live,
    includeToolOutput: s.includeToolOutput,
    createdAt: s.createdAt,
    expiresAt: s.expiresAt,
    ...(s.revokedAt !== undefined ? { revokedAt: s.revokedAt } : {}),
    ...(s.lastAccessAt !== undefined ? { lastAccessAt: s.lastAccessAt } : {}),
    accessCount: s.accessCount,
    state: shareState(s, now),
    ...(s.createdBy ? { createdBy: s.createdBy } : {}),
  };
}

function meta(s: StoredShare): ShareMeta {
  return {
    live: s.live,
    includeToolOutput: s.includeToolOutput,
    ...(s.upToMessageId !== undefined ? { upToMessageId: s.upToMessageId } : {}),
    createdAt: s.createdAt,
    expiresAt: s.expiresAt,
  };
}

function patternOut(p: StoredRedactionPattern): RedactionPattern {
  return {
    id: p.id,
    label: p.label,
    pattern: p.pattern,
    regex: p.regex,
    kind: kindForLabel(p.label),
    createdAt: p.createdAt,
  };
}

/** An open share stream: one viewer's SSE connection. */
class ShareStream {
  private unlisten: (() => void) | undefined;
  private flushTimer: ReturnType<typeof setTimeout> | undefined;
  private expiryTimer: ReturnType<typeof setTimeout> | undefined;
  private done = false;

  constructor(
    readonly share: StoredShare,
    private sink: SseSink,
    private filter: ShareEventFilter | undefined,
    private now: () => number,
    private onDispose: (s: ShareStream) => void,
  ) {}

  start(channel: SessionChannel | undefined, after: number | undefined) {
    this.armExpiry();
    if (channel && this.filter) {
      this.unlisten = channel.listen({ event: (e) => this.onEvent(e), close: () => this.end("unavailable") }, after);
      this.scheduleFlush();
    }
  }

  private armExpiry() {
    const at = this.share.expiresAt;
    if (at === null || this.done) return;
    const wait = at - this.now();
    if (wait <= 0) {
      this.end("expired");
      return;
    }
    this.expiryTimer = setTimeout(
      () => (this.now() >= at ? this.end("expired") : this.armExpiry()),
      Math.min(wait, MAX_TIMER_MS),
    );
    this.expiryTimer.unref?.();
  }

  private onEvent(e: WireEvent) {
    if (this.done || !this.filter) return;
    if (this.share.expiresAt !== null && this.now() >= this.share.expiresAt) {
      this.end("expired");
      return;
    }
    this.send(this.filter.push(e));
    this.scheduleFlush();
  }

  private scheduleFlush() {
    if (this.flushTimer || this.done || !this.filter?.pending) return;
    this.flushTimer = setTimeout(() => {
      this.flushTimer = undefined;
      if (this.filter) this.send(this.filter.flush());
    }, FLUSH_MS);
  }

  private send(events: ShareStreamEvent[]) {
    for (const e of events) {
      if (this.done) return;
      if (!this.sink.write(encodeFrame("seq" in e ? e.seq : undefined, e))) {
        this.dispose();
        return;
      }
    }
  }

  /** Tells the viewer the share is over, then closes the stream. */
  end(reason: ShareEndReason) {
    if (this.done) return;
    const ended: ShareStreamEvent = { type: "share.ended", reason };
    this.sink.write(encodeFrame(undefined, ended));
    this.sink.close();
    this.dispose();
  }

  dispose() {
    if (this.done) return;
    this.done = true;
    this.unlisten?.();
    this.unlisten = undefined;
    if (this.flushTimer) clearTimeout(this.flushTimer);
    if (this.expiryTimer) clearTimeout(this.expiryTimer);
    this.onDispose(this);
  }
}

/**
 * Share links: creation, the management list, revocation, redaction settings, and the public
 * side (resolving a token, the redacted snapshot, the share's own event stream).
 */
export class ShareService {
  private redactor: Redactor;
  private redactorVersion = 0;
  private limiter: FailureLimiter;
  private streams = new Map<string, Set<ShareStream>>();
  private renderers = new Map<string, ShareRenderer>();
  private now: () => number;
  readonly remote: ShareForwarding | undefined;
  private sharedFailures: ShareServiceOptions["sharedFailures"];

  constructor(
    private store: LiveStore,
    private hub: Hub,
    private backends: BackendRegistry,
    opts: ShareServiceOptions = {},
  ) {
    this.now = opts.now ?? Date.now;
    this.remote = opts.remote;
    this.sharedFailures = opts.sharedFailures;
    this.limiter = new FailureLimiter(opts.failureLimit ?? 30, opts.failureWindowMs ?? 60_000, this.now);
    this.redactor = this.buildRedactor();
    // Another replica revoked a share or changed the patterns (PostgreSQL's NOTIFY, read again by
    // the store): its viewers here are ended, and the patterns apply, within a second.
    store.onChange?.((table) => {
      if (table === "shares") this.endRevokedStreams();
      else if (table === "redaction_patterns") this.reloadPatterns();
    });
  }

  /** Ends the open streams of every share the store now says is revoked (or no longer has). */
  private endRevokedStreams() {
    for (const id of [...this.streams.keys()]) {
      const s = this.store.getShare(id);
      if (s && s.revokedAt === undefined) continue;
      this.endStreams(id, "revoked");
      this.renderers.delete(id);
    }
  }

  /** The user's patterns plus the exact secrets the console holds now (server/redaction/redact.ts). */
  private buildRedactor(): Redactor {
    this.redactorVersion = secretsVersion();
    return new Redactor(this.store.listRedactionPatterns(), knownSecrets());
  }

  /** The redactor in use: rebuilt when a secret was registered since (a backend added). */
  private currentRedactor(): Redactor {
    if (this.redactorVersion !== secretsVersion()) this.redactor = this.buildRedactor();
    return this.redactor;
  }

  private renderer(
    s: Pick<StoredShare, "id" | "upToMessageId" | "upToCreatedAt" | "includeToolOutput">,
  ): ShareRenderer {
    let r = this.renderers.get(s.id);
    if (!r) {
      r = new ShareRenderer(
        {
          includeToolOutput: s.includeToolOutput,
          ...(s.upToMessageId !== undefined ? { upToMessageId: s.upToMessageId } : {}),
          ...(s.upToCreatedAt !== undefined ? { upToCreatedAt: s.upToCreatedAt } : {}),
        },
        () => this.currentRedactor(),
      );
      if (this.renderers.size > 500) this.renderers.clear();
      this.renderers.set(s.id, r);
    }
    return r;
  }

  private async channel(backendId: string, sessionId: string): Promise<SessionChannel> {
    this.backends.require(backendId);
    return this.hub.open(backendId, sessionId);
  }

  /**
   * What a share shows of a session: the console's copy (its first page, `FIRST_PAGE_MESSAGES`, and
   * everything since), with older messages read from the backend until it holds `SHARE_HISTORY`.
   * The channel is not changed; `hasOlder` says whether the session goes back further still. A
   * backend that cannot be read right now leaves the share with what the console holds.
   */
  private async history(ch: SessionChannel): Promise<{ state: SessionState; hasOlder: boolean }> {
    const state = ch.state;
    const adapter = this.backends.get(ch.backendId);
    if (!ch.olderCursor || !adapter) return { state, hasOlder: ch.olderCursor !== undefined };
    try {
      const { messages, cursor } = await withOlderMessages(adapter, ch.sessionId, state.messages, ch.olderCursor, {
        upTo: SHARE_HISTORY,
        pageSize: SHARE_HISTORY,
        maxPages: 10,
      });
      return { state: { ...state, messages }, hasOlder: cursor !== undefined };
    } catch (err) {
      log.warn("a share could not read a session's older messages; it shows what the console holds", {
        backendId: ch.backendId,
        sessionId: ch.sessionId,
        error: describeError(err),
      });
      return { state, hasOlder: true };
    }
  }

  private scopeOf(
    state: SessionState,
    upToMessageId: string | undefined,
  ): { upToMessageId?: string; upToCreatedAt?: number } {
    if (upToMessageId === undefined) return {};
    const m = state.messages.find((x) => x.id === upToMessageId);
    if (!m) throw ApiError.badRequest(`Message ${upToMessageId} is not in this session`);
    return { upToMessageId, upToCreatedAt: m.createdAt };
  }

  /* -------------------------------------------------------------------------- management */

  async preview(body: SharePreviewBody): Promise<SharePreview> {
    const ch = await this.channel(body.backendId, body.sessionId);
    const { state, hasOlder } = await this.history(ch);
    const scope = this.scopeOf(state, body.upToMessageId);
    const renderer = new ShareRenderer({ includeToolOutput: body.includeToolOutput, ...scope }, () =>
      this.currentRedactor(),
    );
    const p = previewRedactions(renderer, state);
    return {
      messages: p.messages,
      toolCalls: p.toolCalls,
      hiddenToolOutputs: p.hiddenToolOutputs,
      hasOlder,
      redactions: p.summary,
    };
  }

  async create(body: CreateShareBody, origin: string, createdBy?: PersonRef): Promise<CreatedShare> {
    const ch = await this.channel(body.backendId, body.sessionId);
    if (!ch.state.session) throw ApiError.notFound(`Unknown session: ${body.sessionId}`);
    const { state, hasOlder } = await this.history(ch);
    const scope = this.scopeOf(state, body.upToMessageId);
    const now = this.now();
    const seconds =
      body.expiresIn === "never"
        ? null
        : typeof body.expiresIn === "number"
          ? body.expiresIn
          : SHARE_EXPIRY_SECONDS[body.expiresIn];
    const token = newShareToken();
    const share: StoredShare = {
      id: newShareId(),
      tokenHash: hashShareToken(token),
      backendId: body.backendId,
      sessionId: body.sessionId,
      sessionTitle: ch.state.session.title,
      ...scope,
      live: body.live,
      includeToolOutput: body.includeToolOutput,
      createdAt: now,
      expiresAt: seconds === null ? null : now + seconds * 1000,
      accessCount: 0,
      ...(createdBy ? { createdBy } : {}),
    };
    let frozen: string | undefined;
    if (!share.live) {
      // Frozen now: what is stored is already redacted and scoped; nothing after this moment is served.
      const snap = this.renderer(share).snapshot(state, ch.seq, hasOlder, meta(share), {
        frozen: true,
      });
      frozen = JSON.stringify(snap);
      if (frozen.length > MAX_FROZEN_BYTES)
        throw new ApiError("payload_too_large", "This session is too large to freeze; share it live instead");
    }
    this.store.insertShare(share, frozen);
    log.info("share created", {
      id: share.id,
      backendId: share.backendId,
      sessionId: share.sessionId,
      live: share.live,
    });
    const path = `/share/${token}`;
    return { ...info(share, now), token, path, url: `${origin}${path}` };
  }

  list(q: ListSharesQuery): ShareInfo[] {
    const now = this.now();
    return this.store
      .listShares()
      .filter(
        (s) =>
          (q.backendId === undefined || s.backendId === q.backendId) &&
          (q.sessionId === undefined || s.sessionId === q.sessionId),
      )
      .map((s) => info(s, now))
      .filter((s) => q.state === "all" || s.state === q.state);
  }

  /**
   * `revoke`, for a share another replica may have made a moment ago (its NOTIFY not here yet): one
   * not found is looked for in the database first.
   */
  /** Resolves when the shares written so far are in the database (for another replica to read). */
  async written(): Promise<void> {
    await this.store.flushed?.();
  }

  /** Reads the shares again now (a share was just made on another replica for a request made here). */
  async refreshShares(): Promise<void> {
    await this.store.refresh?.("shares");
  }

  /**
   * `POST /api/shares`: a live share is made on the console that runs its session (replica mode: the
   * request is sent there, and the share read back here before its link is handed out).
   */
  async createFor(req: Request, body: CreateShareBody, origin: string, createdBy?: PersonRef): Promise<Response> {
    if (this.remote?.runsElsewhere(body.backendId)) {
      const made = await this.remote.forward(req, body.backendId, body);
      if (made.ok) await this.refreshShares();
      return made;
    }
    const created = await this.create(body, origin, createdBy);
    // Made for another console: it reads the share back as soon as it has the answer.
    if (this.fromPeer(req)) await this.written();
    return Response.json(created, { status: 201, headers: { "cache-control": "no-store" } });
  }

  async revokeAnywhere(id: string): Promise<ShareInfo> {
    if (!this.store.getShare(id)) await this.store.refresh?.("shares");
    return this.revoke(id);
  }

  /** Revokes a share: its page and stream answer 404 from now on, and open streams close at once. */
  revoke(id: string): ShareInfo {
    const s = this.store.getShare(id);
    if (!s) throw ApiError.notFound(`Unknown share: ${id}`);
    const now = this.now();
    if (this.store.revokeShare(id, now)) log.info("share revoked", { id });
    this.endStreams(id, "revoked");
    this.renderers.delete(id);
    return info(this.store.getShare(id) ?? { ...s, revokedAt: now }, now);
  }

  private endStreams(id: string, reason: ShareEndReason) {
    const set = this.streams.get(id);
    if (!set) return;
    for (const st of [...set]) st.end(reason);
    this.streams.delete(id);
  }

  redactionSettings(): RedactionSettings {
    return {
      builtin: BUILTIN_RULES.map((r) => ({ kind: r.kind, description: r.description })),
      custom: this.store.listRedactionPatterns().map(patternOut),
    };
  }

  addPattern(body: CreateRedactionPatternBody): RedactionPattern {
    const err = validateCustomPattern(body.pattern, body.regex);
    if (err) throw ApiError.badRequest(err, { issues: [{ path: "pattern", message: err, code: "custom" }] });
    const p: StoredRedactionPattern = {
      id: `rdp_${randomBytes(9).toString("base64url")}`,
      label: body.label,
      pattern: body.pattern,
      regex: body.regex,
      createdAt: this.now(),
    };
    this.store.insertRedactionPattern(p);
    this.reloadPatterns();
    return patternOut(p);
  }

  deletePattern(id: string): void {
    if (!this.store.deleteRedactionPattern(id)) throw ApiError.notFound(`Unknown pattern: ${id}`);
    this.reloadPatterns();
  }

  /** Custom patterns apply at once to every share, open streams included (on their next event). */
  private reloadPatterns() {
    this.redactor = this.buildRedactor();
  }

  /* ------------------------------------------------------------------------------ public */

  /**
   * The share behind a token, or the error to answer: 429 for an address that tried too many
   * unknown tokens, 404 for an unknown or revoked share, 410 for an expired one.
   */
  resolve(token: string, client: string): StoredShare {
    const wait = Math.max(this.limiter.blockedFor(client), this.sharedFailures?.blockedFor(client) ?? 0);
    if (wait > 0)
      throw new ApiError("rate_limited", "Too many requests for unknown share links; try again later", {
        retryAfterSeconds: wait,
      });
    const share = isWellFormedShareToken(token) ? this.store.shareByTokenHash(hashShareToken(token)) : undefined;
    if (!share) {
      this.limiter.fail(client);
      this.sharedFailures?.fail(client);
      throw ApiError.notFound("This share link does not exist");
    }
    const state = shareState(share, this.now());
    if (state === "revoked") throw ApiError.notFound("This share link was revoked");
    if (state === "expired") {
      this.store.dropFrozenSnapshot(share.id);
      throw new ApiError("gone", "This share link has expired");
    }
    return share;
  }

  /** Did another console send this request on a viewer's behalf (it counts the view and the stream)? */
  fromPeer(req: Request): boolean {
    return this.remote?.fromPeer(req) ?? false;
  }

  /** Counts a view of the share (page loads and snapshot requests, not stream reconnects). */
  touch(share: StoredShare): void {
    this.store.touchShare(share.id, this.now(), 1);
  }

  /** Whether a live share's session runs on another replica (then `token` reaches it there). */
  private elsewhere(share: StoredShare): ShareForwarding | undefined {
    return share.live && this.remote?.runsElsewhere(share.backendId) ? this.remote : undefined;
  }

  async snapshot(share: StoredShare, token?: string): Promise<SharedSnapshot> {
    const remote = this.elsewhere(share);
    if (remote && token) return remote.snapshot(token, share.backendId);
    const renderer = this.renderer(share);
    if (!share.live) {
      const raw = await this.store.frozenSnapshot(share.id);
      const parsed = raw ? SharedSnapshot.safeParse(JSON.parse(raw)) : undefined;
      if (!parsed?.success) throw ApiError.notFound("This shared session is no longer available");
      return renderer.reRedact(parsed.data);
    }
    const ch = await this.liveChannel(share);
    const { state, hasOlder } = await this.history(ch);
    return renderer.snapshot(state, ch.seq, hasOlder, meta(share));
  }

  /** The share's own SSE: redacted, scoped events for a live share; only its end for a frozen one. */
  async stream(
    share: StoredShare,
    after: number | undefined,
    signal: AbortSignal,
    opts: { idleMs?: number; onEnd?: () => void; token?: string } = {},
  ): Promise<Response> {
    const attach = await this.attacher(share, after, opts.token);
    return sseResponse({
      signal,
      ...(opts.idleMs !== undefined ? { idleMs: opts.idleMs } : {}),
      open: (sink) => {
        const detach = attach(sink);
        return () => {
          detach();
          opts.onEnd?.();
        };
      },
    });
  }

  /**
   * Connects a share's redacted events to any sink — its own SSE, or a browser's multiplexed live
   * stream (`server/live.ts`) — and returns the detach. Resolving the live channel is the part that
   * can fail, so it happens before anything is attached.
   */
  async attacher(
    share: StoredShare,
    after: number | undefined,
    token?: string,
  ): Promise<(sink: SseSink) => () => void> {
    const remote = this.elsewhere(share);
    if (remote && token) {
      // The owner's stream, already redacted and scoped there; it ends when the share does.
      const followed = await remote.follow(token, share.backendId, after);
      return (sink) => followed.attach(sink, () => sink.close());
    }
    const ch = share.live ? await this.liveChannel(share) : undefined;
    const renderer = this.renderer(share);
    return (sink) => {
      const filter = ch ? new ShareEventFilter(renderer, () => ch.state) : undefined;
      const st = new ShareStream(share, sink, filter, this.now, (x) => this.streams.get(share.id)?.delete(x));
      let set = this.streams.get(share.id);
      if (!set) this.streams.set(share.id, (set = new Set()));
      set.add(st);
      st.start(ch, after);
      return () => st.dispose();
    };
  }

  /** Open streams of a share (tests and stats). */
  openStreams(id: string): number {
    return this.streams.get(id)?.size ?? 0;
  }

  /** The hub channel of a live share; backend failures never reach the viewer in detail. */
  private async liveChannel(share: StoredShare): Promise<SessionChannel> {
    try {
      if (!this.backends.get(share.backendId)) throw ApiError.notFound("gone");
      const ch = await this.hub.open(share.backendId, share.sessionId);
      if (!ch.state.session) throw ApiError.notFound("gone");
      return ch;
    } catch (err) {
      if (isApiError(err) && err.code === "not_found")
        throw ApiError.notFound("This shared session is no longer available");
      log.warn("share: session unavailable", { id: share.id, error: describeError(err) });
      throw ApiError.down("The shared session is temporarily unavailable");
    }
  }

  stop(): void {
    for (const id of [...this.streams.keys()]) this.endStreams(id, "unavailable");
  }
}
