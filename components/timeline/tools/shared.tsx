"use client";
/** Helpers shared by the tool bodies: input access, output cleaning, text frames. */
import { useLayoutEffect, useRef, type ReactNode } from "react";
import type { ToolBlock } from "@/lib/model";
import { cx } from "@/components/ui/cx";

/* ------------------------------------------------------------------------------------- input */

/** The first string among `keys` in the tool input (tolerates snake_case / other backends). */
export function inputStr(block: ToolBlock, ...keys: string[]): string | undefined {
  for (const k of keys) {
    const v = block.input[k];
    if (typeof v === "string") return v;
  }
  return undefined;
}

export function inputNum(block: ToolBlock, ...keys: string[]): number | undefined {
  for (const k of keys) {
    const v = block.input[k];
    if (typeof v === "number" && Number.isFinite(v)) return v;
  }
  return undefined;
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The file path a file tool acts on. */
export function toolPath(block: ToolBlock): string | undefined {
  return inputStr(block, "filePath", "file_path", "path", "filename", "file");
}

/* ----------------------------------------------------------------------------------- output */

// CSI / OSC escape sequences (colours, cursor moves, hyperlinks).
// biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI escape sequences start with ESC and BEL
const ANSI_RE = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-Z\\-_]/g;

/** Terminal output as plain text: escape codes removed, carriage-return overwrites applied. */
export function cleanTerminal(s: string): string {
  let out = s.replace(ANSI_RE, "");
  if (out.includes("\r")) {
    out = out
      .replace(/\r\n/g, "\n")
      .split("\n")
      .map((line) => {
        const i = line.lastIndexOf("\r", line.length - 2);
        return i >= 0 ? line.slice(i + 1) : line.replace(/\r$/, "");
      })
      .join("\n");
  }
  return out;
}

const TAIL_MAX = 200_000;

/** Very long output keeps its tail (the interesting end for logs). */
export function tail(s: string, max = TAIL_MAX): { text: string; hidden: number } {
  if (s.length <= max) return { text: s, hidden: 0 };
  const cut = s.indexOf("\n", s.length - max);
  const from = cut >= 0 ? cut + 1 : s.length - max;
  return { text: s.slice(from), hidden: from };
}

/** Removes `<system-reminder>` blocks the agent runtime appends for the model. */
export function stripReminders(s: string): string {
  return s.replace(/\n*<system-reminder>[\s\S]*?<\/system-reminder>\n*/g, "\n").trimEnd();
}

export type ReadOutput =
  | { kind: "file"; text: string; startLine: number; note?: string }
  | { kind: "dir"; entries: string[]; note?: string };

const NOTE_RE = /^\((?:End of file|Showing lines|Output capped|Showing \d+ of|\d+ entries|File has)[^)]*\)$/;
const LINE_PREFIX_RE = /^ *(\d+)(?:: ?|\| ?|\t)/;

/**
 * OpenCode's read output without its wrappers: `<path>/<type>/<content>` (or the older `<file>`),
 * `12: ` / `00012| ` line-number prefixes, and the trailing "(End of file …)" note.
 */
export function parseReadOutput(raw: string): ReadOutput {
  const s = stripReminders(raw.replace(/\r\n/g, "\n"));
  if (/<type>directory<\/type>/.test(s)) {
    const m = /<entries>\n?([\s\S]*?)\n?<\/entries>/.exec(s);
    const lines = (m?.[1] ?? "").split("\n").filter((l) => l.trim() !== "");
    const notes = lines.filter((l) => NOTE_RE.test(l.trim()));
    return { kind: "dir", entries: lines.filter((l) => !NOTE_RE.test(l.trim())), note: notes[0]?.trim().slice(1, -1) };
  }
  let body = s;
  const content = /<content>\n?([\s\S]*?)\n?<\/content>/.exec(s) ?? /<file>\n?([\s\S]*?)\n?<\/file>/.exec(s);
  if (content) body = content[1] ?? "";
  const lines = body.split("\n");
  let note: string | undefined;
  while (lines.length > 0) {
    const last = lines[lines.length - 1]!.trim();
    if (last === "") {
      lines.pop();
    } else if (NOTE_RE.test(last)) {
      note = last.slice(1, -1);
      lines.pop();
    } else break;
  }
  // Strip line-number prefixes only when (nearly) every line carries one.
  let startLine = 1;
  const numbered = lines.filter((l) => LINE_PREFIX_RE.test(l)).length;
  if (lines.length > 0 && numbered >= Math.max(1, lines.length - 1)) {
    const first = LINE_PREFIX_RE.exec(lines[0] ?? "");
    if (first) startLine = Number(first[1]);
    for (let i = 0; i < lines.length; i++) lines[i] = lines[i]!.replace(LINE_PREFIX_RE, "");
  }
  return { kind: "file", text: lines.join("\n"), startLine, note };
}

/* ------------------------------------------------------------------------------------ frames */

/** Keeps a scroll container pinned to the bottom while `active`, unless the user scrolled up. */
export function useStickToBottom<T extends HTMLElement>(content: unknown, active: boolean) {
  const ref = useRef<T>(null);
  const stuck = useRef(true);
  // biome-ignore lint/correctness/useExhaustiveDependencies: sticks to the bottom whenever the content changes
  useLayoutEffect(() => {
    const el = ref.current;
    if (el && active && stuck.current) el.scrollTop = el.scrollHeight;
  }, [content, active]);
  const onScroll = () => {
    const el = ref.current;
    if (el) stuck.current = el.scrollHeight - el.scrollTop - el.clientHeight < 24;
  };
  return { ref, onScroll };
}

/** Monospace text output in a scrolling frame. */
export function OutputPre({
  text,
  follow = false,
  className,
  maxHeight = "max-h-72",
  tone = "default",
}: {
  text: string;
  /** Auto-scroll to the bottom as text grows. */
  follow?: boolean;
  className?: string;
  maxHeight?: string;
  tone?: "default" | "muted" | "err";
}) {
  const { text: shown, hidden } = tail(text);
  const { ref, onScroll } = useStickToBottom<HTMLPreElement>(shown, follow);
  return (
    <pre
      ref={ref}
      onScroll={onScroll}
      className={cx(
        "overflow-auto whitespace-pre-wrap break-words px-3 py-2 font-mono text-[12px] leading-[18px] [overflow-wrap:anywhere]",
        maxHeight,
        tone === "muted" && "text-muted",
        tone === "err" && "text-err",
        tone === "default" && "text-fg/90",
        className,
      )}
    >
      {hidden > 0 ? (
        <span className="text-faint">{`… ${hidden.toLocaleString("en-US")} earlier characters not shown\n`}</span>
      ) : null}
      {shown}
    </pre>
  );
}

/** A sunken frame for tool content. */
export function Frame({ children, className }: { children: ReactNode; className?: string }) {
  return (
    <div className={cx("min-w-0 overflow-hidden rounded-md border border-border bg-sunken", className)}>{children}</div>
  );
}

/** A small uppercase section label inside a tool body. */
export function Label({ children, className }: { children: ReactNode; className?: string }) {
  return (
    <div className={cx("mb-1 text-[10.5px] font-medium uppercase tracking-wide text-faint", className)}>{children}</div>
  );
}

/** Text a tool reported about itself that is not worth more than a quiet line. */
export function QuietLine({ children }: { children: ReactNode }) {
  return <div className="px-0.5 text-[12px] text-faint">{children}</div>;
}

/** Pretty JSON for unknown values. */
export function toJson(v: unknown): string {
  try {
    return JSON.stringify(v, null, 2) ?? String(v);
  } catch {
    return String(v);
  }
}

/** Parses JSON when the text plainly is JSON; undefined otherwise. */
export function maybeJson(s: string | undefined): unknown {
  if (!s) return undefined;
  const t = s.trim();
  if (!(t.startsWith("{") || t.startsWith("["))) return undefined;
  try {
    return JSON.parse(t) as unknown;
  } catch {
    return undefined;
  }
}
