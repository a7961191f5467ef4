/**
 * A session as a Markdown transcript (the "Export as Markdown" action). Pure and isomorphic. The
 * content is untrusted model/tool text: it is put inside fences long enough never to be closed by
 * what they hold, and nothing here becomes HTML.
 */
import type { Block, Message, Session, Todo, ToolBlock, Usage } from "./model";
import { toolSubject } from "./timeline/tool-subject";

/** A fence of backticks longer than any run of backticks in `text` (at least three). */
export function fenceFor(text: string): string {
  let longest = 0;
  for (const m of text.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  return "`".repeat(Math.max(3, longest + 1));
}

function fenced(text: string, lang = ""): string {
  const f = fenceFor(text);
  return `${f}${lang}\n${text.replace(/\n$/, "")}\n${f}`;
}

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");

function usageLine(u: Usage): string {
  const parts = [`${u.inputTokens.toLocaleString("en-US")} in`, `${u.outputTokens.toLocaleString("en-US")} out`];
  const cache = (u.cacheReadTokens ?? 0) + (u.cacheWriteTokens ?? 0);
  if (u.reasoningTokens) parts.push(`${u.reasoningTokens.toLocaleString("en-US")} reasoning`);
  if (cache) parts.push(`${cache.toLocaleString("en-US")} cache`);
  if (u.costUsd) parts.push(`$${u.costUsd.toFixed(4)}`);
  return parts.join(" · ");
}

function toolMarkdown(b: ToolBlock): string {
  const subject = toolSubject(b);
  const status = b.exitCode !== undefined ? `${b.status}, exit ${b.exitCode}` : b.status;
  const head = `**Tool \`${b.rawTool}\`**${subject ? ` — ${subject.includes("\n") ? `${subject.split("\n")[0]} …` : subject}` : ""} _(${status})_`;
  const out: string[] = [head];
  if (b.tool === "write" && typeof b.input.content === "string") out.push(fenced(b.input.content));
  if (b.tool === "todo" && Array.isArray(b.input.todos)) {
    // The plan itself is exported below; the call is just noted.
  } else if (b.output?.trim()) out.push(fenced(b.output));
  if (b.error) out.push(`> Error: ${b.error.replace(/\n/g, "\n> ")}`);
  return out.join("\n\n");
}

function blockMarkdown(b: Block): string | null {
  switch (b.kind) {
    case "text":
      return b.text.trim() ? b.text.trim() : null;
    case "reasoning":
      return b.text.trim() ? `<details><summary>Reasoning</summary>\n\n${fenced(b.text.trim())}\n\n</details>` : null;
    case "tool":
      return toolMarkdown(b);
    case "file":
      return `📎 ${b.name} (${b.mime})`;
    case "notice":
      return `> _${b.text}_`;
  }
}

function messageMarkdown(m: Message): string {
  const who = m.role === "user" ? "User" : m.role === "assistant" ? "Assistant" : "System";
  const meta: string[] = [iso(m.createdAt)];
  if (m.role === "assistant" && m.model) meta.push(m.model.provider ? `${m.model.provider}/${m.model.id}` : m.model.id);
  if (m.agent && m.role === "assistant") meta.push(m.agent);
  if (m.role === "user" && m.author) meta.unshift(`sent by ${m.author.name}`);
  const out = [`## ${who}${m.summary ? " (summary)" : ""}`, `<sub>${meta.join(" · ")}</sub>`];
  for (const b of m.blocks) {
    const md = blockMarkdown(b);
    if (md) out.push(md);
  }
  if (m.error)
    out.push(m.error.aborted ? "> _Stopped_" : `> **${m.error.name}**: ${m.error.message.replace(/\n/g, "\n> ")}`);
  if (m.diffs?.length) {
    const a = m.diffs.reduce((n, d) => n + d.additions, 0);
    const d = m.diffs.reduce((n, x) => n + x.deletions, 0);
    out.push(
      `_Changed ${m.diffs.length} file${m.diffs.length === 1 ? "" : "s"} (+${a} −${d}): ${m.diffs.map((x) => `\`${x.path}\``).join(", ")}_`,
    );
  }
  for (const a of m.answered ?? [])
    out.push(`> _${a.answeredBy.name} answered “${a.title.replace(/\n/g, " ")}”: ${a.decision.replace(/_/g, " ")}_`);
  if (m.usage && m.role === "assistant") out.push(`<sub>${usageLine(m.usage)}</sub>`);
  return out.join("\n\n");
}

const TODO_MARK: Record<string, string> = { completed: "[x]", in_progress: "[~]", cancelled: "[-]" };

export function sessionMarkdown(
  session: Session,
  messages: Message[],
  todos: Todo[] = [],
  exportedAt = Date.now(),
): string {
  const out: string[] = [`# ${session.title.replace(/\n/g, " ")}`];
  const facts: string[] = [
    `- Session: \`${session.id}\``,
    `- Created: ${iso(session.createdAt)}`,
    `- Exported: ${iso(exportedAt)}`,
  ];
  if (session.directory) facts.push(`- Directory: \`${session.directory}\``);
  if (session.model)
    facts.push(`- Model: ${session.model.provider ? `${session.model.provider}/` : ""}${session.model.id}`);
  if (session.forkedFrom)
    facts.push(
      `- Forked from \`${session.forkedFrom.sessionId}\`${session.forkedFrom.messageId ? ` at \`${session.forkedFrom.messageId}\`` : ""}`,
    );
  if (session.usage) facts.push(`- Usage: ${usageLine(session.usage)}`);
  out.push(facts.join("\n"));
  if (todos.length)
    out.push(
      ["## Plan", ...todos.map((t) => `- ${TODO_MARK[t.status] ?? "[ ]"} ${t.content}`)]
        .join("\n\n")
        .replace(/\n\n- /g, "\n- "),
    );
  for (const m of messages) out.push("---", messageMarkdown(m));
  return `${out.join("\n\n")}\n`;
}

/** A file name for a download: the title reduced to safe characters. */
export function exportFileName(session: Pick<Session, "title" | "id">, ext: "md" | "json"): string {
  const base = session.title
    .normalize("NFKD")
    .replace(/[^\w\s-]+/g, "")
    .trim()
    .replace(/\s+/g, "-")
    .slice(0, 60)
    .replace(/^-+|-+$/g, "");
  return `${base || session.id}.${ext}`;
}
