import type { Message } from "@/lib/model";

/**
 * A reply as read back from its agent, with the text the console showed live kept: OpenCode 1.x
 * streams a text part's deltas as events and stores its text only
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
