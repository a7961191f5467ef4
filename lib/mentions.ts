/**
 * `@` file mentions in the composer (docs/api.md, "File mentions"): finding the `@word` being typed,
 * inserting a picked file, and the prompt parts that carry the mentioned files the way the backend
 * understands them (`Capabilities.mentions.carry`). Isomorphic and pure.
 */
import type { PromptPart } from "./api";
import type { Capabilities } from "./model";

/** The `@query` the caret is at the end of: `@` at the start or after white space, no space in the query. */
export function mentionAt(text: string, caret: number): { start: number; query: string } | undefined {
  const before = text.slice(0, caret);
  const m = /(^|\s)@([^\s@]*)$/.exec(before);
  if (!m) return undefined;
  const start = before.length - m[2]!.length - 1;
  return { start, query: m[2]! };
}

/** The text with the `@query` at `start..caret` replaced by `@path ` and where the caret goes after it. */
export function insertMention(
  text: string,
  start: number,
  caret: number,
  path: string,
): { text: string; caret: number } {
  const inserted = `@${path} `;
  const after = text.slice(caret).replace(/^\s/, "");
  return { text: text.slice(0, start) + inserted + after, caret: start + inserted.length };
}

/** The mentioned paths still written in the text (a mention the user deleted is not sent). */
export function keptMentions(text: string, mentions: readonly string[]): string[] {
  return [...new Set(mentions)].filter((p) => {
    const at = `@${p}`;
    for (let i = text.indexOf(at); i >= 0; i = text.indexOf(at, i + 1)) {
      const next = text[i + at.length];
      if (next === undefined || /\s/.test(next)) return true;
    }
    return false;
  });
}

/** A `file://` URL of `rel` inside `directory` (POSIX paths; each segment percent-encoded). */
export function fileUrl(directory: string, rel: string): string {
  const abs = `${directory.replace(/\/+$/, "")}/${rel.replace(/^\/+/, "")}`;
  return `file://${abs.split("/").map(encodeURIComponent).join("/")}`;
}

/**
 * The parts that carry the mentioned files: for `carry: "file"`, a text/plain file part with the
 * file's `file://` URL, which the backend reads itself (OpenCode attaches the content; an ACP agent
 * gets a resource link). For `text` (or no directory to resolve against), none: `@path` in the text is all.
 */
export function mentionParts(
  mentions: readonly string[],
  directory: string | undefined,
  capability: Capabilities["mentions"],
): PromptPart[] {
  if (capability?.carry !== "file" || !directory) return [];
  return mentions.map((p) => ({ type: "file", mime: "text/plain", url: fileUrl(directory, p), filename: p }));
}
