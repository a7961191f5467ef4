/**
 * Derived views of a session's state: turns and their changes, the reverted tail, context usage.
 * Pure and isomorphic; the reducer stays the only code that changes state.
 */
import type { FileChange, Message, Session, Usage } from "../model";

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
      const status: FileChange["status"] = c.status === "deleted" ? "deleted" : prev.status === "added" ? "added" : "modified";
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
  return u.inputTokens + u.outputTokens + (u.reasoningTokens ?? 0) + (u.cacheReadTokens ?? 0) + (u.cacheWriteTokens ?? 0);
}

/** The context in use now: that of the newest assistant message with usage (undefined before any). */
export function currentContext(messages: readonly Message[]): { tokens: number; message: Message } | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === "assistant" && m.usage && (m.usage.inputTokens || m.usage.outputTokens)) return { tokens: m.usage.contextTokens ?? contextTokens(m.usage), message: m };
  }
  return undefined;
}

/** Usage of one turn: its assistant messages summed. */
export function turnUsage(messages: readonly Message[], turn: Pick<Turn, "start" | "end">): Usage | undefined {
  let u: Usage | undefined;
  for (let i = turn.start; i <= turn.end; i++) {
    const m = messages[i];
    if (!m || m.role !== "assistant" || !m.usage) continue;
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
