/**
 * What zot's frames carry, read for the timeline (./normalize.ts): tool arguments streamed as a JSON
 * prefix, tool results (bash's `[exit N]`, edits as diffs), content blocks as text, and usage. Pure.
 */
import type { FileDiff, Usage } from "@/lib/model";
import { canonicalTool } from "../shared/tool-names";
import { arr, isObj, num, obj, str, type Obj } from "../shared/values";

/** Text of zot content blocks (`text` blocks; images as a placeholder). */
export function contentText(content: unknown): string {
  return arr(content)
    .map((b) => {
      const o = obj(b);
      if (o.type === "text") return str(o.text) ?? "";
      if (o.type === "image")
        return `[image ${str(o.mime_type) ?? ""}${num(o.bytes) !== undefined ? `, ${num(o.bytes)} bytes` : ""}]`;
      return "";
    })
    .filter(Boolean)
    .join("\n");
}

/** Closes a JSON prefix well enough to parse it (open strings, arrays and objects), or undefined. */
export function parsePartialJson(raw: string): Obj | undefined {
  const text = raw.trim();
  if (!text) return undefined;
  try {
    const whole = JSON.parse(text) as unknown;
    return isObj(whole) ? whole : undefined;
  } catch {
    // a prefix: close it below
  }
  const closers: string[] = [];
  let inString = false;
  let escaped = false;
  for (const ch of text) {
    if (inString) {
      if (escaped) escaped = false;
      else if (ch === "\\") escaped = true;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    else if (ch === "{") closers.push("}");
    else if (ch === "[") closers.push("]");
    else if (ch === "}" || ch === "]") closers.pop();
  }
  let fixed = text;
  // An open string is closed (a dangling escape dropped).
  if (inString) fixed = `${escaped ? fixed.slice(0, -1) : fixed}"`;
  // A dangling key, colon or comma cannot be closed into valid JSON: drop it.
  fixed = fixed
    .replace(/,\s*$/, "")
    .replace(/,\s*"(?:[^"\\]|\\.)*"\s*:?\s*$/, "")
    .replace(/\{\s*"(?:[^"\\]|\\.)*"\s*:?\s*$/, "{");
  fixed += closers.reverse().join("");
  try {
    const v = JSON.parse(fixed) as unknown;
    return isObj(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/** A tool call's one-line title: the command of `bash`, the path of the others. */
export function toolTitle(name: string, input: Obj): string | undefined {
  const tool = canonicalTool(name);
  const s = tool === "bash" ? str(input.command) : str(input.path);
  return s ? s.split("\n")[0]!.slice(0, 200) : undefined;
}

/** `[exit N]` (and zot's "(full output: …)") at the end of bash output → the exit code and the rest. */
export function splitExit(output: string): { output: string; exitCode?: number } {
  const m = /(?:^|\n)\[exit (-?\d+)\]( \(full output: [^)\n]*\))?\s*$/.exec(output);
  if (!m) return { output };
  const rest = output.slice(0, m.index) + (m[2] ? `\n${m[2].trim()}` : "");
  return { output: rest.replace(/^\n/, ""), exitCode: Number(m[1]) };
}

/** A snippet diff of one file from zot's edit arguments (`edits: [{oldText, newText}]`). */
export function editDiffs(name: string, input: Obj): FileDiff[] | undefined {
  const path = str(input.path);
  if (!path) return undefined;
  if (name === "write") {
    const content = str(input.content);
    if (content === undefined) return undefined;
    const lines = content.replace(/\n$/, "").split("\n");
    const patch = `--- /dev/null\n+++ b/${path}\n@@ -0,0 +1,${lines.length} @@\n${lines.map((l) => `+${l}`).join("\n")}\n`;
    return [{ path, status: "added", additions: lines.length, deletions: 0, patch }];
  }
  if (name !== "edit") return undefined;
  let additions = 0;
  let deletions = 0;
  const hunks: string[] = [];
  for (const e of arr(input.edits)) {
    const o = obj(e);
    const before = str(o.oldText);
    const after = str(o.newText);
    if (before === undefined || after === undefined) continue;
    const a = before.split("\n");
    const b = after.split("\n");
    additions += b.length;
    deletions += a.length;
    hunks.push(
      `@@ -1,${a.length} +1,${b.length} @@\n${a.map((l) => `-${l}`).join("\n")}\n${b.map((l) => `+${l}`).join("\n")}\n`,
    );
  }
  if (hunks.length === 0) return undefined;
  return [{ path, status: "modified", additions, deletions, patch: `--- a/${path}\n+++ b/${path}\n${hunks.join("")}` }];
}

/** A `usage` frame's counts (or its `cumulative`). */
export function usageOf(o: Obj): Usage {
  const u: Usage = { inputTokens: num(o.input) ?? 0, outputTokens: num(o.output) ?? 0 };
  const cr = num(o.cache_read);
  const cw = num(o.cache_write);
  const cost = num(o.cost_usd);
  const reasoning = num(o.reasoning);
  if (cr) u.cacheReadTokens = cr;
  if (cw) u.cacheWriteTokens = cw;
  if (cost) u.costUsd = cost;
  if (reasoning) u.reasoningTokens = reasoning;
  return u;
}

/** Two usages added up. */
export function addUsage(a: Usage | undefined, b: Usage): Usage {
  const sum = (x?: number, y?: number) => (x ?? 0) + (y ?? 0) || undefined;
  const out: Usage = {
    inputTokens: (a?.inputTokens ?? 0) + b.inputTokens,
    outputTokens: (a?.outputTokens ?? 0) + b.outputTokens,
  };
  const fields = ["cacheReadTokens", "cacheWriteTokens", "costUsd", "reasoningTokens"] as const;
  for (const f of fields) {
    const v = sum(a?.[f], b[f]);
    if (v !== undefined) out[f] = v;
  }
  return out;
}
