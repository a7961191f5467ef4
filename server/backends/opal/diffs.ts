/**
 * Opal's diffs → file diffs: an edit's or a write's `result.meta.diff` (structured, or a unified
 * text from other builds), merged per file for a turn's review or a whole session's. Pure.
 */
import type { FileChange, FileDiff, Message } from "@/lib/model";
import { ApiError } from "../../errors";
import { arr, isObj, num, str, type Obj } from "../shared/values";
import type { OpalTurn } from "./turn-state";

/** A unified diff (`result.meta.diff`) → the edit's file diffs. */
export function diffFiles(diff: string, fallbackPath?: string): FileDiff[] {
  const files: FileDiff[] = [];
  let cur: FileDiff | undefined;
  for (const line of diff.split("\n")) {
    if (line.startsWith("--- ")) {
      cur = undefined;
      continue;
    }
    if (line.startsWith("+++ ")) {
      const p = line.slice(4).replace(/^b\//, "").trim();
      cur = {
        path: p === "/dev/null" ? (fallbackPath ?? "") : p,
        status: "modified",
        additions: 0,
        deletions: 0,
        patch: "",
      };
      files.push(cur);
      continue;
    }
    if (!cur) {
      if (!line.startsWith("@@")) continue;
      cur = { path: fallbackPath ?? "", status: "modified", additions: 0, deletions: 0, patch: "" };
      files.push(cur);
    }
    if (line.startsWith("+")) cur.additions++;
    else if (line.startsWith("-")) cur.deletions++;
  }
  // Each file's patch is the whole text for a single file; several files share it (rare for one edit).
  for (const f of files) f.patch = diff;
  return files.filter((f) => f.path !== "" || fallbackPath === undefined);
}

/**
 * Opal's structured diff (`opal/lib/opal/diff.ex`: `{path, lines_added, lines_removed, hunks:
 * [{old_start, new_start, lines: [{op: eq|del|ins, text, old_no?, new_no?}]}]}`, an edit's or a
 * write's `result.meta.diff`) → the file's diff with a unified patch. `written`: a write whose
 * diff has no old line at all made the file.
 */
export function structuredDiff(d: Obj, fallbackPath: string | undefined, written = false): FileDiff | undefined {
  const file = str(d.path) ?? fallbackPath;
  const hunks = arr(d.hunks).filter(isObj);
  if (!file) return undefined;
  const body: string[] = [];
  let additions = 0;
  let deletions = 0;
  let old = 0;
  for (const h of hunks) {
    const lines = arr(h.lines).filter(isObj);
    const oldCount = lines.filter((l) => l.op !== "ins").length;
    const newCount = lines.filter((l) => l.op !== "del").length;
    old += oldCount;
    body.push(`@@ -${num(h.old_start) ?? 1},${oldCount} +${num(h.new_start) ?? 1},${newCount} @@`);
    for (const l of lines) {
      const text = str(l.text) ?? "";
      if (l.op === "del") {
        deletions++;
        body.push(`-${text}`);
      } else if (l.op === "ins") {
        additions++;
        body.push(`+${text}`);
      } else body.push(` ${text}`);
    }
  }
  const added = written && old === 0;
  const patch = hunks.length
    ? `${[`--- ${added ? "/dev/null" : `a/${file}`}`, `+++ b/${file}`, ...body].join("\n")}\n`
    : "";
  return {
    path: file,
    status: added ? "added" : "modified",
    additions: num(d.lines_added) ?? additions,
    deletions: num(d.lines_removed) ?? deletions,
    patch,
  };
}

/** Diffs of several edits merged per file: counts summed, patches concatenated, added if the first made it. */
export function mergeDiffs(list: FileDiff[]): FileDiff[] {
  const byPath = new Map<string, FileDiff>();
  for (const d of list) {
    const prev = byPath.get(d.path);
    byPath.set(
      d.path,
      prev
        ? {
            path: d.path,
            status: prev.status === "added" ? "added" : d.status,
            additions: prev.additions + d.additions,
            deletions: prev.deletions + d.deletions,
            patch: prev.patch + d.patch,
          }
        : d,
    );
  }
  return [...byPath.values()];
}

/** The files a run's edits and writes changed (Opal's `meta.diff`), merged per file: the turn's review. */
export function turnChanges(turn: OpalTurn): FileChange[] {
  return mergeDiffs([...turn.tools.values()].flatMap((b) => b.diff ?? [])).map(({ patch: _p, ...c }) => c);
}

/** The diffs of a turn (the user message's) or of the whole session, from the tool blocks the console recorded. */
export function recordedDiffs(messages: Message[], messageId?: string): FileDiff[] {
  let from = 0;
  let to = messages.length;
  if (messageId !== undefined) {
    from = messages.findIndex((m) => m.id === messageId);
    if (from < 0) throw ApiError.notFound(`Unknown message: ${messageId}`);
    const next = messages.findIndex((m, i) => i > from && m.role === "user");
    if (next >= 0) to = next;
  }
  return mergeDiffs(
    messages.slice(from, to).flatMap((m) => m.blocks.flatMap((b) => (b.kind === "tool" ? (b.diff ?? []) : []))),
  );
}
