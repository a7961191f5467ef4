/**
 * What a share shows (docs/sharing.md): the session's messages in scope, redacted, without backend
 * details, interrupts or errors of the console. Pure: the service feeds it state and events.
 *
 * - Scope: the whole session, or messages up to one (inclusive, by the reducer's order).
 * - Tool outputs may be left out: output, error text, diffs and file contents in the input.
 * - Streaming text is redacted as a whole, never delta by delta (a key split across two deltas
 *   would slip through); the share stream turns deltas into whole-block updates. While a block is
 *   still growing, its last, unfinished word is held back, so a key is never shown half-typed.
 */
import type { SharedSnapshot, RedactionSummary, ShareStreamEvent } from "@/lib/api";
import type { Block, Message, MessageInfo, Session, SessionStatus, ToolBlock, WireEvent } from "@/lib/model";
import type { SessionState } from "@/lib/timeline/reducer";
import type { Finding, Redactor } from "../redaction/redactor";
import { isBusy, reportedStatus } from "@/lib/timeline/selectors";

export interface ShareScope {
  upToMessageId?: string;
  upToCreatedAt?: number;
  includeToolOutput: boolean;
}

export type ShareMeta = SharedSnapshot["share"];

/** Message order of the reducer: (createdAt, id). */
export function inScope(scope: ShareScope, m: { id: string; createdAt: number }): boolean {
  if (scope.upToMessageId === undefined || scope.upToCreatedAt === undefined) return true;
  if (m.createdAt !== scope.upToCreatedAt) return m.createdAt < scope.upToCreatedAt;
  return m.id <= scope.upToMessageId;
}

/** Drops the unfinished last word of a growing text (everything after its last whitespace). */
export function holdBackTail(text: string): string {
  if (text === "" || /\s$/.test(text)) return text;
  return text.replace(/\S+$/, "");
}

/** Input fields that carry file contents or patches: left out with the tool outputs. */
const CONTENT_KEYS = new Set([
  "content",
  "contents",
  "text",
  "oldString",
  "newString",
  "old_string",
  "new_string",
  "patch",
  "patchText",
  "patch_text",
  "diff",
  "edits",
  "data",
  "body",
]);

function inputWithoutContents(input: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(input)) {
    if (CONTENT_KEYS.has(k)) continue;
    if (typeof v === "string") {
      if (v.length <= 2000) out[k] = v;
    } else if (typeof v === "number" || typeof v === "boolean") out[k] = v;
  }
  return out;
}

function isImageDataUrl(url: string): boolean {
  return /^data:image\/(png|jpe?g|gif|webp|avif|bmp);/i.test(url.trim());
}

/** Renders session state into what a share may show. Caches redacted blocks by identity. */
export class ShareRenderer {
  private cache = new WeakMap<Block, Block>();
  private cachedFor: Redactor | undefined;

  constructor(
    readonly scope: ShareScope,
    private redactor: () => Redactor,
  ) {}

  private r(): Redactor {
    const current = this.redactor();
    if (current !== this.cachedFor) {
      this.cache = new WeakMap();
      this.cachedFor = current;
    }
    return current;
  }

  /** The redactor in use now (the user's patterns change it). */
  redactorNow(): Redactor {
    return this.r();
  }

  private text(s: string, sink?: Finding[]): string {
    return this.r().text(s, sink);
  }

  session(s: Session, status: SessionStatus): Session {
    const out: Session = {
      id: s.id,
      backendId: "share",
      title: this.text(s.title),
      createdAt: s.createdAt,
      updatedAt: s.updatedAt,
      status,
    };
    if (s.model) out.model = { ...(s.model.provider ? { provider: s.model.provider } : {}), id: s.model.id };
    // Usage covers the whole session: not shown when only part of it is shared.
    if (s.usage && this.scope.upToMessageId === undefined) out.usage = s.usage;
    return out;
  }

  info(m: MessageInfo, sink?: Finding[]): MessageInfo {
    const out: MessageInfo = { id: m.id, sessionId: m.sessionId, role: m.role, createdAt: m.createdAt };
    if (m.completedAt !== undefined) out.completedAt = m.completedAt;
    if (m.model) out.model = m.model;
    if (m.agent) out.agent = m.agent;
    if (m.usage) out.usage = m.usage;
    if (m.summary) out.summary = m.summary;
    if (m.error)
      out.error = {
        name: m.error.name,
        message: this.text(m.error.message, sink),
        ...(m.error.aborted ? { aborted: true } : {}),
      };
    return out;
  }

  /** One block, redacted and scoped. `growing`: the block may still change; hold back its tail. */
  block(b: Block, growing: boolean, sink?: Finding[]): Block {
    const r = this.r();
    // Only settled blocks are cached: a growing one changes with every delta anyway.
    const cacheable = !growing && !sink;
    if (cacheable) {
      const hit = this.cache.get(b);
      if (hit) return hit;
    }
    let out: Block;
    switch (b.kind) {
      case "text":
      case "reasoning":
        out = { ...b, text: r.text(growing ? holdBackTail(b.text) : b.text, sink) };
        break;
      case "notice":
        out = { ...b, text: r.text(b.text, sink) };
        break;
      case "file": {
        const url = isImageDataUrl(b.url) ? b.url : /^https?:\/\//i.test(b.url.trim()) ? r.text(b.url, sink) : "";
        out = { ...b, name: r.text(b.name, sink), url };
        break;
      }
      case "tool":
        out = this.tool(b, growing, sink);
        break;
    }
    if (cacheable) this.cache.set(b, out);
    return out;
  }

  private tool(b: ToolBlock, growing: boolean, sink?: Finding[]): ToolBlock {
    const r = this.r();
    const full = this.scope.includeToolOutput;
    const input = r.value(full ? b.input : inputWithoutContents(b.input), sink) as Record<string, unknown>;
    const out: ToolBlock = {
      id: b.id,
      kind: "tool",
      callId: b.callId,
      tool: b.tool,
      rawTool: b.rawTool,
      status: b.status,
      input,
    };
    if (b.title !== undefined) out.title = r.text(b.title, sink);
    if (b.exitCode !== undefined) out.exitCode = b.exitCode;
    if (b.childSessionId !== undefined) out.childSessionId = b.childSessionId;
    if (b.startedAt !== undefined) out.startedAt = b.startedAt;
    if (b.endedAt !== undefined) out.endedAt = b.endedAt;
    if (full) {
      if (b.output !== undefined) out.output = r.text(growing ? holdBackTail(b.output) : b.output, sink);
      if (b.error !== undefined) out.error = r.text(b.error, sink);
      if (b.diff) out.diff = b.diff.map((d) => ({ ...d, path: r.text(d.path, sink), patch: r.text(d.patch, sink) }));
    }
    return out;
  }

  /** Whether a block of this message may still grow. */
  growing(state: SessionState, m: MessageInfo, b: Block): boolean {
    if (b.kind === "tool") return b.status === "running" || b.status === "pending" || b.status === "awaiting-approval";
    if (b.kind !== "text" && b.kind !== "reasoning") return false;
    return m.completedAt === undefined && m.role === "assistant" && isBusy(state.session?.status);
  }

  message(state: SessionState, m: Message, sink?: Finding[]): Message {
    return { ...this.info(m, sink), blocks: m.blocks.map((b) => this.block(b, this.growing(state, m, b), sink)) };
  }

  /** The session's status as a share shows it: a scoped share is idle once its last message is. */
  status(state: SessionState): SessionStatus {
    const s = state.session?.status ?? "idle";
    const shown = reportedStatus(s);
    if (this.scope.upToMessageId === undefined || !isBusy(shown)) return shown;
    const last = state.messages.find((m) => m.id === this.scope.upToMessageId);
    return last && last.completedAt === undefined ? shown : "idle";
  }

  snapshot(
    state: SessionState,
    seq: number,
    hasOlder: boolean,
    share: ShareMeta,
    opts: { frozen?: boolean } = {},
  ): SharedSnapshot {
    if (!state.session) throw new Error("session not loaded");
    const messages = state.messages.filter((m) => inScope(this.scope, m)).map((m) => this.message(state, m));
    return {
      share,
      session: this.session(state.session, opts.frozen ? "idle" : this.status(state)),
      messages,
      seq,
      hasOlder,
    };
  }

  /** Re-applies the current redaction (custom patterns added since) to a stored snapshot. */
  reRedact(snap: SharedSnapshot): SharedSnapshot {
    const r = this.r();
    return {
      ...snap,
      session: { ...snap.session, title: r.text(snap.session.title) },
      messages: snap.messages.map((m) => ({
        ...m,
        ...(m.error ? { error: { ...m.error, message: r.text(m.error.message) } } : {}),
        blocks: m.blocks.map((b) => this.block(b, false)),
      })),
    };
  }
}

/* --------------------------------------------------------------------------------- preview */

/** The line around a marker (windowed when long), for a preview. */
export function lineExcerpt(text: string, offset: number, length: number): string {
  const ls = text.lastIndexOf("\n", offset - 1) + 1;
  const nl = text.indexOf("\n", offset + length);
  const le = nl < 0 ? text.length : nl;
  const line = text.slice(ls, le);
  const pos = offset - ls;
  if (line.length <= 96) return line.trim();
  const start = Math.max(0, pos - 44);
  const end = Math.min(line.length, pos + length + 32);
  return `${start > 0 ? "…" : ""}${line.slice(start, end).trim()}${end < line.length ? "…" : ""}`;
}

/** Every text of a message that a share with this scope shows, with where it comes from. */
function sharedTexts(m: Message, includeToolOutput: boolean): { where: string; text: string }[] {
  const out: { where: string; text: string }[] = [];
  if (m.error?.message) out.push({ where: "error", text: m.error.message });
  for (const b of m.blocks) {
    switch (b.kind) {
      case "text":
        out.push({ where: m.role === "user" ? "prompt" : "reply", text: b.text });
        break;
      case "reasoning":
        out.push({ where: "reasoning", text: b.text });
        break;
      case "notice":
        out.push({ where: "notice", text: b.text });
        break;
      case "file":
        out.push({ where: "file", text: b.name });
        if (/^https?:\/\//i.test(b.url.trim())) out.push({ where: "file", text: b.url });
        break;
      case "tool": {
        const input = includeToolOutput ? b.input : inputWithoutContents(b.input);
        for (const [k, v] of Object.entries(input)) {
          if (typeof v === "string")
            out.push({ where: b.tool === "bash" && k === "command" ? "bash command" : `${b.tool} input`, text: v });
          else if (v && typeof v === "object") out.push({ where: `${b.tool} input`, text: JSON.stringify(v, null, 1) });
        }
        if (includeToolOutput) {
          if (b.output) out.push({ where: `${b.tool} output`, text: b.output });
          if (b.error) out.push({ where: `${b.tool} error`, text: b.error });
          for (const d of b.diff ?? []) out.push({ where: `${b.tool} diff`, text: d.patch });
        }
        // Last: the title often repeats the command, and the examples should name the command.
        if (b.title) out.push({ where: `${b.tool} title`, text: b.title });
        break;
      }
    }
  }
  return out;
}

/**
 * What redaction removes from a share of this state: distinct secrets by kind, how often they
 * occur, and a few examples (one per secret, the line around its marker).
 */
export function previewRedactions(
  renderer: ShareRenderer,
  state: SessionState,
  maxExamples = 6,
): { summary: RedactionSummary; messages: number; toolCalls: number; hiddenToolOutputs: number } {
  const redactor = renderer.redactorNow();
  const distinct = new Map<string, string>(); // fingerprint → kind
  const examples: RedactionSummary["examples"] = [];
  const perKind = new Map<string, number>();
  let occurrences = 0;
  let toolCalls = 0;
  let hiddenToolOutputs = 0;
  const messages = state.messages.filter((m) => inScope(renderer.scope, m));
  const texts: { where: string; text: string }[] = state.session ? [{ where: "title", text: state.session.title }] : [];
  for (const m of messages) {
    for (const b of m.blocks) {
      if (b.kind !== "tool") continue;
      toolCalls++;
      if (!renderer.scope.includeToolOutput && (b.output || b.diff?.length || b.error)) hiddenToolOutputs++;
    }
    texts.push(...sharedTexts(m, renderer.scope.includeToolOutput));
  }
  for (const { where, text } of texts) {
    const r = redactor.redact(text);
    for (const f of r.findings) {
      occurrences++;
      if (distinct.has(f.fingerprint)) continue;
      distinct.set(f.fingerprint, f.kind);
      const n = perKind.get(f.kind) ?? 0;
      if (examples.length >= maxExamples || n >= 2) continue;
      perKind.set(f.kind, n + 1);
      examples.push({ kind: f.kind, where, excerpt: lineExcerpt(r.text, f.offset, f.kind.length + 11) });
    }
  }
  const byKind: Record<string, number> = {};
  for (const kind of distinct.values()) byKind[kind] = (byKind[kind] ?? 0) + 1;
  return {
    summary: { total: distinct.size, occurrences, byKind, examples },
    messages: messages.length,
    toolCalls,
    hiddenToolOutputs,
  };
}

/* ---------------------------------------------------------------------------- event filter */

/**
 * Turns the hub's events for one session into what a share's stream sends. Deltas become
 * whole-block updates (redacted as a whole), coalesced until `flush()` or the next other event,
 * so seqs on the wire still only grow.
 */
export class ShareEventFilter {
  /** Blocks changed by deltas and not sent yet: key → latest seq. */
  private dirty = new Map<string, { messageId: string; blockId: string; seq: number }>();
  /** For a share up to a message: the ids of the messages in scope (a removal of any other is not sent). */
  private known: Set<string> | undefined;

  constructor(
    private renderer: ShareRenderer,
    private state: () => SessionState,
  ) {
    if (renderer.scope.upToMessageId !== undefined) {
      this.known = new Set(
        state()
          .messages.filter((m) => inScope(renderer.scope, m))
          .map((m) => m.id),
      );
    }
  }

  get pending(): boolean {
    return this.dirty.size > 0;
  }

  private message(id: string): Message | undefined {
    const ms = this.state().messages;
    for (let i = ms.length - 1; i >= 0; i--) if (ms[i]!.id === id) return ms[i];
    return undefined;
  }

  private scoped(id: string): Message | undefined {
    const m = this.message(id);
    return m && inScope(this.renderer.scope, m) ? m : undefined;
  }

  private blockEvent(m: Message, blockId: string, seq: number): ShareStreamEvent | undefined {
    const b = m.blocks.find((x) => x.id === blockId);
    if (!b) return undefined;
    const state = this.state();
    return {
      type: "block.updated",
      messageId: m.id,
      block: this.renderer.block(b, this.renderer.growing(state, m, b)),
      seq,
    };
  }

  /** Every block of a message, settled (its held-back tails released). */
  private wholeMessage(m: Message, seq: number): ShareStreamEvent[] {
    const state = this.state();
    return m.blocks.map((b) => ({
      type: "block.updated" as const,
      messageId: m.id,
      block: this.renderer.block(b, this.renderer.growing(state, m, b)),
      seq,
    }));
  }

  /** The coalesced block updates, oldest first. */
  flush(): ShareStreamEvent[] {
    if (!this.dirty.size) return [];
    const items = [...this.dirty.values()].sort((a, b) => a.seq - b.seq);
    this.dirty.clear();
    const out: ShareStreamEvent[] = [];
    for (const d of items) {
      const m = this.scoped(d.messageId);
      const e = m && this.blockEvent(m, d.blockId, d.seq);
      if (e) out.push(e);
    }
    return out;
  }

  /** The events to send now for one hub event. */
  push(e: WireEvent): ShareStreamEvent[] {
    if (e.type === "block.delta") {
      if (this.scoped(e.messageId))
        this.dirty.set(`${e.messageId}\u0000${e.blockId}`, { messageId: e.messageId, blockId: e.blockId, seq: e.seq });
      return [];
    }
    if (e.type === "block.updated") this.dirty.delete(`${e.messageId}\u0000${e.block.id}`);
    const out = this.flush();
    const seq = e.seq;
    const state = this.state();
    switch (e.type) {
      case "session.updated":
        if (state.session)
          out.push({
            type: "session.updated",
            session: this.renderer.session(state.session, this.renderer.status(state)),
            seq,
          });
        break;
      case "session.status": {
        const status = this.renderer.status(state);
        if (!isBusy(status)) {
          // The turn ended: release the tails held back from the last message in scope.
          const last = [...state.messages]
            .reverse()
            .find((m) => m.role === "assistant" && inScope(this.renderer.scope, m));
          if (last) out.push(...this.wholeMessage(last, seq));
        }
        out.push({ type: "session.status", status, seq });
        break;
      }
      case "message.updated": {
        const m = this.scoped(e.message.id);
        if (!m) break;
        this.known?.add(m.id);
        out.push({ type: "message.updated", message: this.renderer.info(m), seq });
        if (m.completedAt !== undefined) out.push(...this.wholeMessage(m, seq));
        break;
      }
      case "message.removed":
        if (this.known && !this.known.delete(e.messageId)) break;
        out.push({ type: "message.removed", messageId: e.messageId, seq });
        break;
      case "block.updated": {
        const m = this.scoped(e.messageId);
        const b = m && this.blockEvent(m, e.block.id, seq);
        if (b) out.push(b);
        break;
      }
      case "block.removed":
        if (this.scoped(e.messageId))
          out.push({ type: "block.removed", messageId: e.messageId, blockId: e.blockId, seq });
        break;
      case "usage.updated":
        if (this.renderer.scope.upToMessageId === undefined) out.push({ type: "usage.updated", usage: e.usage, seq });
        break;
      case "stream.reset":
        this.dirty.clear();
        out.push({ type: "stream.reset", reason: "reload the snapshot", seq });
        break;
      // Interrupts, todos and console errors are not part of a share.
      case "interrupt.requested":
      case "interrupt.resolved":
      case "todo.updated":
      case "error":
        break;
    }
    return out;
  }
}
