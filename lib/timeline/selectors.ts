/**
 * Derived views of a session's state: busy / waiting and where an interrupt shows, turns and their
 * changes, the reverted tail, context usage.
 * Pure and isomorphic; the reducer stays the only code that changes state.
 */
import type { FileChange, Interrupt, Message, Session, SessionStatus, ToolBlock, Usage } from "../model";

/* --------------------------------------------------------------------- busy, waiting, anchors */

/** A turn is running: the agent works, retries, or waits for the user. */
export function isBusy(status: SessionStatus | undefined): boolean {
  return status === "busy" || status === "retry" || status === "waiting";
}

/** The session is blocked on the user (a pending interrupt). */
export function isWaiting(status: SessionStatus | undefined): boolean {
  return status === "waiting";
}

/**
 * The status a session shows: a running session (busy or retrying) with pending interrupts is
 * `waiting`; anything else is its own status. The one place "waiting for you" is derived.
 */
export function shownStatus(status: SessionStatus, pendingInterrupts: number): SessionStatus {
  return pendingInterrupts > 0 && (status === "busy" || status === "retry") ? "waiting" : status;
}

/**
 * The status without the "waiting" overlay, as backends report it (`busy` for a session blocked on
 * an interrupt): what a diff publishes and a share or the sidebar shows when the interrupts
 * themselves are not at hand.
 */
export function reportedStatus(status: SessionStatus): SessionStatus {
  return status === "waiting" ? "busy" : status;
}

/**
 * The session whose view shows an interrupt: a subagent's interrupt shows in the session that
 * owns the subagent (`ownerSessionId`), anything else in its own session.
 */
export function interruptAnchor(it: Pick<Interrupt, "sessionId" | "ownerSessionId">): string {
  return it.ownerSessionId ?? it.sessionId;
}

/** The interrupt was asked by a subagent on behalf of the session that shows it. */
export function askedBySubagent(it: Pick<Interrupt, "sessionId" | "ownerSessionId">): boolean {
  return it.ownerSessionId !== undefined && it.ownerSessionId !== it.sessionId;
}

/** Whether `sessionId` is blocked on the interrupt (its own, or its subagent's it owns). */
export function interruptBlocks(it: Pick<Interrupt, "sessionId" | "ownerSessionId">, sessionId: string): boolean {
  return it.sessionId === sessionId || it.ownerSessionId === sessionId;
}

/**
 * The tool blocks of session `sessionId` an interrupt is about: the call that asked, or the `task`
 * whose subagent asked (such a tool shows `awaiting-approval`).
 */
export function interruptAsks(it: Interrupt, sessionId: string | undefined): (b: ToolBlock) => boolean {
  return (b) =>
    (it.toolCallId !== undefined && b.callId === it.toolCallId) ||
    (it.sessionId !== sessionId && b.childSessionId !== undefined && b.childSessionId === it.sessionId);
}

/**
 * Index of the first message hidden by a pending revert (OpenCode hides `revert.messageId` and
 * everything after it until the next prompt drops them), or -1 when nothing is reverted. When the
 * message itself is not loaded (an older page), the first newer message starts the tail — ids sort
 * in time order, and so do the messages.
 */
export function revertIndex(messages: readonly Message[], revert: Session["revert"] | undefined): number {
  if (!revert) return -1;
  const exact = messages.findIndex((m) => m.id === revert.messageId);
  if (exact >= 0) return exact;
  const after = messages.findIndex((m) => m.id > revert.messageId);
  return after;
}

export interface ChangeTotals {
  files: number;
  additions: number;
  deletions: number;
}

export function changeTotals(changes: readonly FileChange[]): ChangeTotals {
  let additions = 0;
  let deletions = 0;
  for (const c of changes) {
    additions += c.additions;
    deletions += c.deletions;
  }
  return { files: changes.length, additions, deletions };
}

/** A turn: a user message and the replies up to the next user message. */
export interface Turn {
  /** The user message that started it (its id is the turn's id for the diff route). */
  user: Message;
  /** Index of the user message and of the turn's last message in `messages`. */
  start: number;
  end: number;
  /** The files the turn changed (from the user message's summary), possibly empty. */
  changes: FileChange[];
  totals: ChangeTotals;
}

export function turns(messages: readonly Message[]): Turn[] {
  const out: Turn[] = [];
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role !== "user") {
      const last = out[out.length - 1];
      if (last) last.end = i;
      continue;
    }
    const changes = m.diffs ?? [];
    out.push({ user: m, start: i, end: i, changes, totals: changeTotals(changes) });
  }
  return out;
}

/** The text a user typed in a message (its text blocks). */
export function userText(m: Message): string {
  return m.blocks
    .filter((b) => b.kind === "text")
    .map((b) => (b.kind === "text" ? b.text : ""))
    .join("\n\n")
    .trim();
}

/** Changes of several turns merged per file: counts summed, status from the first and last change. */
export interface MergedChange extends FileChange {
  /** Ids of the user messages whose turns changed the file, oldest first. */
  turnIds: string[];
}

export function mergeChanges(list: readonly Turn[]): MergedChange[] {
  const byPath = new Map<string, MergedChange>();
  for (const t of list) {
    for (const c of t.changes) {
      const prev = byPath.get(c.path);
      if (!prev) {
        byPath.set(c.path, { ...c, turnIds: [t.user.id] });
        continue;
      }
      // Deleted last → deleted; added first and still there → added; anything else → modified.
      const status: FileChange["status"] =
        c.status === "deleted" ? "deleted" : prev.status === "added" ? "added" : "modified";
      byPath.set(c.path, {
        path: c.path,
        status,
        additions: prev.additions + c.additions,
        deletions: prev.deletions + c.deletions,
        turnIds: [...prev.turnIds, t.user.id],
      });
    }
  }
  return [...byPath.values()].sort((a, b) => a.path.localeCompare(b.path));
}

/** Tokens in the model's context after a step: everything it read and wrote. */
export function contextTokens(u: Usage): number {
  return (
    u.inputTokens + u.outputTokens + (u.reasoningTokens ?? 0) + (u.cacheReadTokens ?? 0) + (u.cacheWriteTokens ?? 0)
  );
}

/** The context in use now: that of the newest assistant message with usage (undefined before any). */
export function currentContext(messages: readonly Message[]): { tokens: number; message: Message } | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === "assistant" && m.usage && (m.usage.inputTokens || m.usage.outputTokens))
      return { tokens: m.usage.contextTokens ?? contextTokens(m.usage), message: m };
  }
  return undefined;
}

/** Usage of one turn: its assistant messages summed. */
export function turnUsage(messages: readonly Message[], turn: Pick<Turn, "start" | "end">): Usage | undefined {
  let u: Usage | undefined;
  for (let i = turn.start; i <= turn.end; i++) {
    const m = messages[i];
    if (m?.role !== "assistant" || !m.usage) continue;
    const x = m.usage;
    u = {
      inputTokens: (u?.inputTokens ?? 0) + x.inputTokens,
      outputTokens: (u?.outputTokens ?? 0) + x.outputTokens,
      reasoningTokens: (u?.reasoningTokens ?? 0) + (x.reasoningTokens ?? 0),
      cacheReadTokens: (u?.cacheReadTokens ?? 0) + (x.cacheReadTokens ?? 0),
      cacheWriteTokens: (u?.cacheWriteTokens ?? 0) + (x.cacheWriteTokens ?? 0),
      costUsd: (u?.costUsd ?? 0) + (x.costUsd ?? 0),
    };
  }
  return u;
}
