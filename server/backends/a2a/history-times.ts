/** Times of opencode-a2a history pages (`opencode.sessions.messages.list`), whose messages come without any. */
import type { Message } from "@/lib/model";

/** Listed messages have no times: they get increasing ones from `base`. */
export function withTimes(items: Message[], base: number): Message[] {
  return items.map((m, i) => ({ ...m, createdAt: base + i }));
}

/** The time inside an OpenCode history cursor (base64url JSON `{id, time}`), when it has one. */
export function cursorTime(cursor: string): number | undefined {
  try {
    const t = (JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as { time?: unknown }).time;
    return typeof t === "number" && Number.isFinite(t) ? t : undefined;
  } catch {
    return undefined;
  }
}
