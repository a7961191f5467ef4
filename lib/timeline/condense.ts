/**
 * A session's timeline condensed to rows for a narrow column (the comparison board, docs/compare.md):
 * the prompts as one line, the text as it streams, each tool call as one line with its status,
 * reasoning left out (a "thinking" row while it is the newest thing a turn does), errors and stops as
 * a line, and the pending interrupts last. Pure and isomorphic; text stays text (the view renders it inert).
 */
import type { Interrupt, Message, ToolBlock, ToolStatus } from "../model";
import { toolSubject } from "./tool-subject";

export type CondensedRow =
  | { kind: "prompt"; id: string; text: string }
  | { kind: "text"; id: string; text: string; messageId: string }
  | { kind: "thinking"; id: string }
  | { kind: "tool"; id: string; tool: string; label: string; status: ToolStatus }
  | { kind: "file"; id: string; name: string }
  | { kind: "notice"; id: string; level: "info" | "warn" | "error"; text: string }
  | { kind: "interrupt"; id: string; ask: Interrupt["kind"]; title: string };

/** The most characters a text row keeps (a longer one keeps its end: the part being written). */
export const TEXT_CHARS = 4000;
/** The most rows a column shows (the newest; the session page has the whole of it). */
export const MAX_ROWS = 300;

const firstLine = (s: string) => s.trim().split("\n", 1)[0]!;

/** A tool call in a few words: its subject (command, path, pattern, address …), else its tool's name. */
export function toolLabel(b: ToolBlock): string {
  return firstLine(toolSubject(b) || b.rawTool || b.tool).slice(0, 300);
}

const clip = (text: string) => (text.length > TEXT_CHARS ? `…${text.slice(-TEXT_CHARS)}` : text);

/** One message's rows (cached per message object: the reducer gives a new one only to what changed). */
const cache = new WeakMap<Message, CondensedRow[]>();

function messageRows(m: Message): CondensedRow[] {
  const hit = cache.get(m);
  if (hit) return hit;
  const rows: CondensedRow[] = [];
  if (m.role === "user") {
    const text = m.blocks
      .filter((b) => b.kind === "text")
      .map((b) => (b as { text: string }).text)
      .join(" ");
    if (text.trim()) rows.push({ kind: "prompt", id: `${m.id}:prompt`, text: firstLine(text).slice(0, 300) });
    for (const b of m.blocks) if (b.kind === "file") rows.push({ kind: "file", id: `${m.id}:${b.id}`, name: b.name });
  } else {
    const open = m.completedAt === undefined && !m.error;
    m.blocks.forEach((b, i) => {
      switch (b.kind) {
        case "text":
          if (b.text.trim()) rows.push({ kind: "text", id: `${m.id}:${b.id}`, text: clip(b.text), messageId: m.id });
          break;
        case "reasoning":
          // Left out, except as the newest thing a running turn does (it shows the agent is at work).
          if (open && i === m.blocks.length - 1) rows.push({ kind: "thinking", id: `${m.id}:${b.id}` });
          break;
        case "tool":
          rows.push({ kind: "tool", id: `${m.id}:${b.id}`, tool: b.tool, label: toolLabel(b), status: b.status });
          break;
        case "file":
          rows.push({ kind: "file", id: `${m.id}:${b.id}`, name: b.name });
          break;
        case "notice":
          if (b.code !== "retry" || open)
            rows.push({ kind: "notice", id: `${m.id}:${b.id}`, level: b.level, text: firstLine(b.text) });
          break;
      }
    });
    if (m.error)
      rows.push({
        kind: "notice",
        id: `${m.id}:error`,
        level: m.error.aborted ? "info" : "error",
        text: m.error.aborted ? "Stopped" : firstLine(m.error.message).slice(0, 300),
      });
  }
  cache.set(m, rows);
  return rows;
}

/** The rows of a session's messages and pending interrupts, the newest `MAX_ROWS`. */
export function condense(messages: readonly Message[], interrupts: readonly Interrupt[] = []): CondensedRow[] {
  const out: CondensedRow[] = [];
  for (const m of messages) for (const r of messageRows(m)) out.push(r);
  for (const it of interrupts) out.push({ kind: "interrupt", id: `interrupt:${it.id}`, ask: it.kind, title: it.title });
  return out.length > MAX_ROWS ? out.slice(-MAX_ROWS) : out;
}

/** The id of the newest text row: the column's latest reply. */
export function latestText(rows: readonly CondensedRow[]): string | undefined {
  for (let i = rows.length - 1; i >= 0; i--) if (rows[i]!.kind === "text") return rows[i]!.id;
  return undefined;
}

/**
 * A column's figures from the session's messages as they stream (what `GET /api/compare/:id` reports
 * between its polls): when the work began and, once idle, ended; tokens and cost where known.
 */
export function figures(
  messages: readonly Message[],
  idle: boolean,
): { startedAt?: number; endedAt?: number; tokens?: { input: number; output: number }; costUsd?: number } {
  let input = 0;
  let output = 0;
  let cost = 0;
  let last: Message | undefined;
  for (const m of messages) {
    if (m.role !== "assistant") continue;
    last = m;
    input += m.usage?.inputTokens ?? 0;
    output += m.usage?.outputTokens ?? 0;
    cost += m.usage?.costUsd ?? 0;
  }
  const first = messages[0]?.createdAt;
  return {
    ...(first !== undefined ? { startedAt: first } : {}),
    ...(idle && last?.completedAt ? { endedAt: last.completedAt } : {}),
    ...(input || output ? { tokens: { input, output } } : {}),
    ...(cost ? { costUsd: cost } : {}),
  };
}
