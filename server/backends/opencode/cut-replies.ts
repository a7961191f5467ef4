/**
 * Replies cut off by OpenCode's death, as read back from it: the text the console showed kept, and
 * nothing left running in an idle session. Pure.
 */
import type { Message, MessageError } from "@/lib/model";

export { keepShownText } from "@/lib/timeline/keep-shown";

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
