"use client";
import { useMemo } from "react";
import type { FileDiff, ToolBlock } from "@/lib/model";
import { DiffView } from "@/components/code/diff-view";
import { diffFromStrings } from "@/lib/unified-diff/from-strings";
import { parseUnifiedDiff } from "@/lib/unified-diff/parse";
import { Badge } from "@/components/ui/badge";
import { OutputPre, inputStr, isRecord, stripReminders, toolPath } from "./shared";

const GENERIC_OK =
  /^(?:(Wrote file successfully|Edit applied successfully|File written successfully|Success)\.?($|\s+Updated the following files:)|(applied \d+ edit\(s\)|wrote \d+ bytes) to [^\n]+$)/i;

/** Tool output worth showing next to a diff (e.g. diagnostics), not the routine "success" line. */
function ExtraOutput({ block }: { block: ToolBlock }) {
  if (!block.output || block.status !== "completed") return null;
  const text = stripReminders(block.output).trim();
  if (!text || GENERIC_OK.test(text)) return null;
  return (
    <div className="overflow-hidden rounded-md border border-border bg-sunken">
      <OutputPre text={text} tone="muted" maxHeight="max-h-48" />
    </div>
  );
}

function StatusChip({ status }: { status: FileDiff["status"] }) {
  if (status === "modified") return null;
  return <Badge tone={status === "added" ? "ok" : "err"}>{status}</Badge>;
}

/** Diffs carried by the block itself (exact line numbers), one per file. */
export function FileDiffs({ diffs, header }: { diffs: FileDiff[]; header: boolean }) {
  return (
    <>
      {diffs.map((d, i) => (
        <DiffView
          key={`${d.path}:${i}`}
          patch={d.patch}
          path={d.path}
          header={header}
          headerExtra={<StatusChip status={d.status} />}
          maxLines={80}
        />
      ))}
    </>
  );
}

/** The edits a tool call makes, as before/after pairs (edit, or multiedit's `edits`). */
export function editPairs(block: ToolBlock): Array<{ before: string; after: string }> {
  const single = {
    before: inputStr(block, "oldString", "old_string", "old_str", "oldText") ?? "",
    after: inputStr(block, "newString", "new_string", "new_str", "newText") ?? "",
  };
  const edits = block.input.edits;
  if (Array.isArray(edits) && edits.length > 0) {
    const first = (e: Record<string, unknown>, ...keys: string[]) =>
      keys.map((k) => e[k]).find((v): v is string => typeof v === "string") ?? "";
    return edits.filter(isRecord).map((e) => ({
      before: first(e, "oldString", "old_string", "oldText"),
      after: first(e, "newString", "new_string", "newText"),
    }));
  }
  return single.before || single.after ? [single] : [];
}

const patchCache = new WeakMap<ToolBlock, string>();

/** The patch text to show for an edit/write without a `diff` field (memoized per block object). */
export function synthesizedPatch(block: ToolBlock): string {
  const hit = patchCache.get(block);
  if (hit !== undefined) return hit;
  const path = toolPath(block) ?? "file";
  const patch =
    block.tool === "write"
      ? diffFromStrings(path, "", inputStr(block, "content", "contents", "text") ?? "")
      : editPairs(block)
          .map((p) => diffFromStrings(path, p.before, p.after, 3))
          .join("");
  patchCache.set(block, patch);
  return patch;
}

/** +/− counts for the card header. */
export function editStats(block: ToolBlock): { additions: number; deletions: number } | null {
  if (block.diff && block.diff.length > 0) {
    return block.diff.reduce(
      (acc, d) => ({ additions: acc.additions + d.additions, deletions: acc.deletions + d.deletions }),
      { additions: 0, deletions: 0 },
    );
  }
  if (block.tool === "patch") {
    const text = patchText(block);
    if (!text) return null;
    const p = parseUnifiedDiff(text);
    return { additions: p.additions, deletions: p.deletions };
  }
  const p = parseUnifiedDiff(synthesizedPatch(block));
  return p.additions || p.deletions ? { additions: p.additions, deletions: p.deletions } : null;
}

export function WriteBody({ block }: { block: ToolBlock }) {
  const path = toolPath(block);
  const patch = useMemo(() => (block.diff?.length ? "" : synthesizedPatch(block)), [block]);
  return (
    <div className="flex flex-col gap-2">
      {block.diff?.length ? (
        <FileDiffs diffs={block.diff} header={block.diff.length > 1} />
      ) : (
        <DiffView patch={patch} path={path} lineNumbers maxLines={40} />
      )}
      <ExtraOutput block={block} />
    </div>
  );
}

export function EditBody({ block }: { block: ToolBlock }) {
  const path = toolPath(block);
  const patch = useMemo(() => (block.diff?.length ? "" : synthesizedPatch(block)), [block]);
  return (
    <div className="flex flex-col gap-2">
      {block.diff?.length ? (
        <FileDiffs diffs={block.diff} header={block.diff.length > 1} />
      ) : patch ? (
        // Snippet diffs: their line numbers would be relative to the snippet, so none are shown.
        <DiffView patch={patch} path={path} lineNumbers={false} maxLines={60} />
      ) : null}
      <ExtraOutput block={block} />
    </div>
  );
}

export function patchText(block: ToolBlock): string | undefined {
  return inputStr(block, "patchText", "patch", "diff", "input");
}

/** Files named by a patch (`block.diff`, or `*** Update File:` / `+++ b/` lines of the patch text). */
export function patchFiles(block: ToolBlock): string[] {
  if (block.diff?.length) return block.diff.map((d) => d.path);
  const text = patchText(block) ?? "";
  const files = new Set<string>();
  for (const m of text.matchAll(/^\*\*\* (?:Add|Update|Delete) File: (.+)$/gm)) files.add(m[1]!.trim());
  for (const m of text.matchAll(/^\+\+\+ (?:b\/)?(.+)$/gm)) if (m[1] !== "/dev/null") files.add(m[1]!.trim());
  return [...files];
}

/** Splits a multi-file patch (OpenCode `*** Begin Patch` form, or git `diff --git`) per file. */
export function splitPatchByFile(text: string): Array<{ path: string; status: FileDiff["status"]; patch: string }> {
  const out: Array<{ path: string; status: FileDiff["status"]; lines: string[] }> = [];
  let cur: (typeof out)[number] | null = null;
  for (const line of text.replace(/\r\n/g, "\n").split("\n")) {
    const mark = /^\*\*\* (Add|Update|Delete) File: (.+)$/.exec(line);
    const git = /^diff --git a\/(.+?) b\/(.+)$/.exec(line);
    if (mark || git) {
      const status: FileDiff["status"] = mark
        ? mark[1] === "Add"
          ? "added"
          : mark[1] === "Delete"
            ? "deleted"
            : "modified"
        : "modified";
      cur = { path: (mark ? mark[2] : git![2])!.trim(), status, lines: [] };
      out.push(cur);
      continue;
    }
    const move = /^\*\*\* Move to: (.+)$/.exec(line);
    if (move && cur) {
      cur.path = move[1]!.trim();
      continue;
    }
    if (/^\*\*\* (Begin|End) Patch/.test(line) || /^\*\*\* End of File/.test(line)) continue;
    if (cur) {
      if (/^new file mode/.test(line)) cur.status = "added";
      if (/^deleted file mode/.test(line)) cur.status = "deleted";
      cur.lines.push(line);
    }
  }
  return out.map((f) => {
    // An added file in the OpenCode form has bare "+" lines: give it a numbered hunk.
    const bare = f.status === "added" && f.lines.length > 0 && !f.lines.some((l) => l.startsWith("@@"));
    const lines = bare ? [`@@ -0,0 +1,${f.lines.filter((l) => l.startsWith("+")).length} @@`, ...f.lines] : f.lines;
    return { path: f.path, status: f.status, patch: lines.join("\n") };
  });
}

export function PatchBody({ block }: { block: ToolBlock }) {
  const text = patchText(block);
  const files = useMemo(() => (text && !block.diff?.length ? splitPatchByFile(text) : []), [text, block.diff]);
  return (
    <div className="flex flex-col gap-2">
      {block.diff?.length ? (
        <FileDiffs diffs={block.diff} header />
      ) : files.length > 0 ? (
        files.map((f, i) => (
          <DiffView
            key={`${f.path}:${i}`}
            patch={f.patch}
            path={f.path}
            header
            headerExtra={<StatusChip status={f.status} />}
            emptyText={f.status === "deleted" ? "File deleted" : undefined}
            maxLines={80}
          />
        ))
      ) : text ? (
        <DiffView patch={text} maxLines={80} />
      ) : null}
      <ExtraOutput block={block} />
    </div>
  );
}
