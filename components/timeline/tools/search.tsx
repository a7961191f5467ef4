"use client";
import { useMemo } from "react";
import type { ToolBlock } from "@/lib/model";
import { FilePath } from "@/components/ui/file-path";
import { IconFile } from "@/components/ui/icons";
import { Frame, OutputPre, QuietLine, stripReminders } from "./shared";

interface GrepFile {
  path: string;
  lines: Array<{ n?: number; text: string }>;
}

const NOTE_LINE = /^\((?:Results|Showing)[^)]*\)$/;

/** OpenCode grep output: "Found N matches", then "path:" headers and "  Line n: text" rows. */
export function parseGrepOutput(raw: string): { files: GrepFile[]; notes: string[] } | null {
  const lines = stripReminders(raw).split("\n");
  const files: GrepFile[] = [];
  const notes: string[] = [];
  let cur: GrepFile | null = null;
  let matched = false;
  for (const line of lines) {
    const t = line.trim();
    if (!t) continue;
    if (/^Found \d+ match/.test(t)) {
      matched = true;
      continue;
    }
    if (NOTE_LINE.test(t)) {
      notes.push(t.slice(1, -1));
      continue;
    }
    const m = /^\s+Line (\d+): ?(.*)$/.exec(line);
    if (m && cur) {
      cur.lines.push({ n: Number(m[1]), text: m[2] ?? "" });
      matched = true;
      continue;
    }
    // ripgrep style "path:12:text"
    const rg = /^(.+?):(\d+):(.*)$/.exec(line);
    if (rg) {
      if (!cur || cur.path !== rg[1]) files.push((cur = { path: rg[1]!, lines: [] }));
      cur.lines.push({ n: Number(rg[2]), text: rg[3] ?? "" });
      matched = true;
      continue;
    }
    if (t.endsWith(":")) {
      files.push((cur = { path: t.slice(0, -1), lines: [] }));
      continue;
    }
    if (cur) cur.lines.push({ text: line });
    else return null;
  }
  return matched || files.length > 0 ? { files, notes } : null;
}

export function GrepBody({ block }: { block: ToolBlock }) {
  const parsed = useMemo(() => (block.output ? parseGrepOutput(block.output) : null), [block.output]);
  if (!block.output) return null;
  const text = stripReminders(block.output).trim();
  if (!parsed)
    return /^No (files|matches) found/i.test(text) ? (
      <QuietLine>No matches</QuietLine>
    ) : (
      <Frame>
        <OutputPre text={text} />
      </Frame>
    );
  return (
    <div className="flex flex-col gap-1">
      <Frame className="max-h-80 overflow-y-auto py-1">
        {parsed.files.map((f, i) => (
          <div key={i} className={i > 0 ? "mt-1" : undefined}>
            <div className="flex h-[22px] items-center gap-2 px-3 text-[12.5px]">
              <IconFile size={13} className="shrink-0 text-faint" />
              <FilePath path={f.path} className="flex-1" />
              <span className="shrink-0 font-mono text-[11px] text-faint">{f.lines.length}</span>
            </div>
            {f.lines.map((l, j) => (
              <div key={j} className="flex items-baseline gap-3 pl-[38px] pr-3 font-mono text-[12px] leading-[19px]">
                <span className="w-8 shrink-0 select-none text-right text-faint/80">{l.n ?? ""}</span>
                <span className="min-w-0 truncate text-fg/85" title={l.text}>
                  {l.text.trim()}
                </span>
              </div>
            ))}
          </div>
        ))}
      </Frame>
      {parsed.notes.map((n, i) => (
        <QuietLine key={i}>{n}</QuietLine>
      ))}
    </div>
  );
}

/** Glob: one path per line. */
export function GlobBody({ block }: { block: ToolBlock }) {
  if (!block.output) return null;
  const lines = stripReminders(block.output)
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
  const notes = lines.filter((l) => NOTE_LINE.test(l)).map((l) => l.slice(1, -1));
  const paths = lines.filter((l) => !NOTE_LINE.test(l));
  if (paths.length === 0 || (paths.length === 1 && /^No files found/i.test(paths[0]!)))
    return <QuietLine>No files found</QuietLine>;
  return (
    <div className="flex flex-col gap-1">
      <Frame className="max-h-72 overflow-y-auto py-1">
        {paths.map((p, i) => (
          <div key={i} className="flex h-[22px] items-center gap-2 px-3 text-[12.5px]">
            <IconFile size={13} className="shrink-0 text-faint" />
            <FilePath path={p} />
          </div>
        ))}
      </Frame>
      {notes.map((n, i) => (
        <QuietLine key={i}>{n}</QuietLine>
      ))}
    </div>
  );
}

/** List: the directory tree as the tool printed it. */
export function ListBody({ block }: { block: ToolBlock }) {
  if (!block.output) return null;
  const text = stripReminders(block.output).replace(/\n+$/, "");
  if (!text) return <QuietLine>Empty directory</QuietLine>;
  return (
    <Frame>
      <OutputPre text={text} className="whitespace-pre" />
    </Frame>
  );
}
