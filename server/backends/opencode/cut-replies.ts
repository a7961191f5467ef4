/**
 * Replies cut off by OpenCode's death, as read back from it: the text the console showed kept, and
 * nothing left running in an idle session. Pure.
 */
import type { Message, MessageError } from "@/lib/model";

/**
 * A reply cut off by the server's death, as read back from the server, with the text the console
 * showed live kept: OpenCode 1.x streams a text part's deltas as events and stores its text only
 * when the part ends, so the stored copy of a cut reply has empty (or shorter) text and reasoning
 * blocks. A shown block wins where the stored one is a prefix of it; shown blocks the server never
 * stored are kept after the stored ones, in the order they were shown.
 */
export function keepShownText(stored: Message, shown: Message): Message {
  const isProse = (b: Message["blocks"][number]) => b.kind === "text" || b.kind === "reasoning";
  const shownById = new Map(shown.blocks.filter(isProse).map((b) => [b.id, b]));
  const storedIds = new Set(stored.blocks.map((b) => b.id));
  const blocks = stored.blocks.map((b) => {
    const seen = shownById.get(b.id);
    if (!seen || seen.kind !== b.kind || !("text" in b) || !("text" in seen)) return b;
    return seen.text.length > b.text.length && seen.text.startsWith(b.text) ? { ...b, text: seen.text } : b;
  });
  const unstored = shown.blocks.filter((b) => isProse(b) && !storedIds.has(b.id));
  if (!unstored.length && blocks.every((b, i) => b === stored.blocks[i])) return stored;
  return { ...stored, blocks: [...blocks, ...unstored] };
}

/**
 * In an idle session nothing can still be running: a tool left `pending`/`running` (OpenCode was
 * killed mid-turn and its database kept the part as it was) is shown as cancelled, with why.
 */
export function settleIdle(messages: Message[], cutOff?: MessageError): Message[] {
  return messages.map((m) => {
    // A reply with neither a completion time nor an error in an idle session was cut off: OpenCode
    // stamps `time.completed` on every reply it ends, aborted and failed ones included.
    const unfinished = cutOff && m.role === "assistant" && m.completedAt === undefined && !m.error;
    if (!unfinished && !m.blocks.some((b) => b.kind === "tool" && (b.status === "running" || b.status === "pending")))
      return m;
    return {
      ...m,
      ...(unfinished ? { error: { ...cutOff } } : {}),
      blocks: m.blocks.map((b) =>
        b.kind === "tool" && (b.status === "running" || b.status === "pending")
          ? {
              ...b,
              status: "cancelled" as const,
              error: b.error ?? "Interrupted: the backend stopped before this tool finished",
            }
          : b,
      ),
    };
  });
}
