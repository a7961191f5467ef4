/**
 * The earlier conversation, as text for a new zot process (docs/backends/zot.md, "History"). zot
 * keeps nothing and cannot load a transcript (its RPC mode keeps no sessions), so when the console
 * starts a new process for a session that already has messages (after a console restart, a crash,
 * or an idle process closed), it gives the newest turns that fit a bounded size over the process's
 * stdin, ahead of the first prompt — never on its command line, which any local user can read. Pure.
 */
import type { Message } from "@/lib/model";

/** Default bound of the context text. */
export const CONTEXT_MAX_CHARS = 24_000;
const TEXT_MAX = 4_000;
const TOOL_IO_MAX = 600;

export interface EarlierConversation {
  text: string;
  /** Messages included (newest first kept) and in the whole transcript. */
  included: number;
  total: number;
}

const clip = (s: string, max: number) =>
  s.length > max ? `${s.slice(0, max)} … [${s.length - max} more characters]` : s;

/** One message as plain text (text, tool calls with a clipped input and output, notices left out). */
function render(m: Message): string | undefined {
  const parts: string[] = [];
  for (const b of m.blocks) {
    if (b.kind === "text" && b.text.trim()) parts.push(clip(b.text.trim(), TEXT_MAX));
    else if (b.kind === "file") parts.push(`[attached ${b.mime} ${b.name}]`);
    else if (b.kind === "tool") {
      const input = clip(JSON.stringify(b.input), TOOL_IO_MAX);
      const out = b.output ?? b.error;
      parts.push(`[tool ${b.rawTool} ${input} → ${b.status}${out ? `: ${clip(out.trim(), TOOL_IO_MAX)}` : ""}]`);
    }
  }
  if (parts.length === 0) return undefined;
  const who = m.role === "user" ? "User" : m.summary ? "Summary" : m.role === "assistant" ? "Assistant" : "System";
  const stopped = m.error?.aborted
    ? " (stopped by the user)"
    : m.error
      ? ` (ended with an error: ${clip(m.error.message, 200)})`
      : "";
  return `[${who}]${stopped}\n${parts.join("\n")}`;
}

/**
 * The newest messages of `messages` (chronological) that fit `maxChars`, whole, oldest first, under a
 * header that says what this is. Undefined when there is nothing to give.
 */
export function earlierConversation(
  messages: readonly Message[],
  maxChars = CONTEXT_MAX_CHARS,
): EarlierConversation | undefined {
  const rendered: string[] = [];
  let size = 0;
  let total = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    const r = render(messages[i]!);
    if (r === undefined) continue;
    total++;
    if (size + r.length + 2 > maxChars) {
      // Count the rest, keep nothing older (a gap in the middle would mislead).
      for (let j = i - 1; j >= 0; j--) if (render(messages[j]!) !== undefined) total++;
      break;
    }
    rendered.unshift(r);
    size += r.length + 2;
  }
  if (rendered.length === 0) return undefined;
  const omitted = total - rendered.length;
  const header = [
    "# Earlier conversation",
    "This session started before this process. Switchboard kept its transcript and gives it to you here, because zot keeps no history between processes.",
    omitted > 0
      ? `The ${omitted} oldest message${omitted === 1 ? " is" : "s are"} left out; these are the newest ${rendered.length}.`
      : `All ${rendered.length} earlier messages follow.`,
    "Continue the conversation from where it stopped; files the tools changed are on disk as they were left.",
  ].join("\n");
  return { text: `${header}\n\n${rendered.join("\n\n")}`, included: rendered.length, total };
}
