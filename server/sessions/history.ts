import "server-only";
import type { Message } from "@/lib/model";
import type { BackendAdapter } from "../backends/types";

/**
 * A session's messages with older ones read from its backend in front of them: page by page from
 * `cursor` (a load's `olderCursor`, then each page's `nextCursor`) until `upTo` messages are held,
 * the session's start is reached, or `maxPages` pages were read. Oldest first; a message already
 * held is not added twice. The returned `cursor` is where the session goes on further back
 * (undefined at its start). An adapter that cannot page (no `loadMessages`) adds nothing.
 */
export async function withOlderMessages(
  adapter: Pick<BackendAdapter, "loadMessages">,
  sessionId: string,
  held: readonly Message[],
  cursor: string | undefined,
  opts: { upTo: number; pageSize: number; maxPages: number },
): Promise<{ messages: Message[]; cursor: string | undefined }> {
  let messages = [...held];
  const known = new Set(held.map((m) => m.id));
  for (let i = 0; cursor && adapter.loadMessages && i < opts.maxPages && messages.length < opts.upTo; i++) {
    const limit = Math.min(opts.pageSize, opts.upTo - messages.length);
    const page = await adapter.loadMessages(sessionId, { before: cursor, limit });
    const fresh = page.items.filter((m) => !known.has(m.id));
    for (const m of fresh) known.add(m.id);
    messages = [...fresh, ...messages];
    cursor = page.nextCursor;
    if (page.items.length === 0) break;
  }
  return { messages, cursor };
}
