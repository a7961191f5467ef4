import "server-only";
import type { Message, MessageInfo, Usage } from "@/lib/model";
import { sumApiUsage } from "./normalize-api";

/** `/api`: how many pages of history are read to add up a session's usage (beyond, none is shown). */
const USAGE_PAGES = 50;
/** `/api`: how many sessions' per-message usage is kept for the live total. */
const USAGE_SESSIONS = 200;

/**
 * `/api` (1.18) reports a session's own tokens and cost as zero: for the sessions loaded here, the
 * usage of each assistant message, read on load and kept current by the stream's `step.ended`
 * frames, summed into the session's usage (sumApiUsage).
 */
export class ApiUsageBook {
  private apiUsage = new Map<string, Map<string, Usage>>();

  /**
   * `/api`: a session's usage from its assistant messages (the first page is the one just loaded;
   * older pages are read too, up to USAGE_PAGES, beyond which no total is shown rather than a short
   * one). Keeps the per-message usage for the stream's updates.
   */
  async sessionUsage(
    sessionId: string,
    first: { items: Message[]; nextCursor?: string },
    olderPage: (before: string) => Promise<{ items: Message[]; nextCursor?: string }>,
  ): Promise<Usage | undefined> {
    const byMessage = new Map<string, Usage>();
    const add = (items: Message[]) => {
      for (const m of items) if (m.role === "assistant" && m.usage) byMessage.set(m.id, m.usage);
    };
    add(first.items);
    let cursor = first.nextCursor;
    for (let pages = 0; cursor; pages++) {
      if (pages >= USAGE_PAGES) return undefined;
      const page = await olderPage(cursor);
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

  /** A message's usage moved (a step ended): the session's new total, for a session kept here. */
  messageUpdated(sessionId: string, message: MessageInfo): Usage | undefined {
    const byMessage = this.apiUsage.get(sessionId);
    if (!byMessage || !message.usage) return undefined;
    byMessage.set(message.id, message.usage);
    return sumApiUsage(byMessage.values());
  }
}
