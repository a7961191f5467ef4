"use client";
/**
 * Code display with lazy syntax highlighting.
 *
 * Plain monospace text renders at once (no layout jump); shiki is imported on demand the first time
 * a code block scrolls near the viewport (./highlighter.ts: github-light-high-contrast, readable on
 * diff tints, + github-dark, JavaScript regex engine, languages loaded on demand) — in a worker
 * (./highlight.worker.ts), on the main thread only when no worker runs. Tokens are React spans with inline
 * colours — never as HTML — because file contents are untrusted. Both theme colours are carried on
 * each span (`color` = light, `--shiki-dark` = dark) and app/globals.css picks one per `data-theme`.
 */
import { memo, useEffect, useMemo, useRef, useState, type CSSProperties, type ReactNode } from "react";
import type { TokLine } from "./highlighter";
import { CopyButton } from "@/components/ui/copy-button";
import { cx } from "@/components/ui/cx";
import { normalizeLang } from "@/lib/code-languages";

/* -------------------------------------------------------------------------------- highlighter */

export type { Tok, TokLine } from "./highlighter";

const MAX_LINES = 2000;
const MAX_BYTES = 200_000;

/** Whether `code` is small enough to highlight. */
export function canHighlight(code: string): boolean {
  if (code.length > MAX_BYTES) return false;
  let lines = 1;
  for (let i = code.indexOf("\n"); i !== -1; i = code.indexOf("\n", i + 1)) {
    if (++lines > MAX_LINES) return false;
  }
  return true;
}

const cache = new Map<string, TokLine[] | null>();
const CACHE_MAX = 150;

function cacheKey(code: string, lang: string) {
  return `${lang}\u0000${code}`;
}

function remember(key: string, value: TokLine[] | null) {
  if (cache.size >= CACHE_MAX) {
    const first = cache.keys().next();
    if (!first.done) cache.delete(first.value);
  }
  cache.set(key, value);
}

/*
 * Where tokenizing runs: in the highlight worker, so a 2,000-line file never blocks a frame and the
 * page itself never holds shiki, its grammars (the TypeScript grammar alone is a 160 KB string plus
 * its parsed rules and compiled expressions) or its themes: they live in the worker's heap, not the
 * page's (issue 46, heap after load), and the worker is ended once it has had nothing to do for
 * WORKER_IDLE_MS, freeing them (the tokens stay in this module's cache; the next block starts a new
 * worker). A worker that cannot start (or fails) sends everything back to the main thread.
 */
const WORKER_IDLE_MS = 10_000;
let worker: Worker | null | undefined;
let idleTimer: ReturnType<typeof setTimeout> | undefined;
let nextId = 0;
const waiting = new Map<number, { code: string; lang: string; resolve: (lines: TokLine[] | null) => void }>();

function onMainThread(code: string, lang: string): Promise<TokLine[] | null> {
  return import("./highlighter").then((h) => h.highlightTokens(code, lang)).catch(() => null);
}

function highlightWorker(): Worker | null {
  if (worker !== undefined) return worker;
  if (typeof Worker === "undefined") return (worker = null);
  try {
    const w = new Worker(new URL("./highlight.worker.ts", import.meta.url));
    w.onmessage = (e: MessageEvent<{ id: number; lines: TokLine[] | null }>) => {
      const job = waiting.get(e.data.id);
      waiting.delete(e.data.id);
      job?.resolve(e.data.lines);
      if (waiting.size === 0) {
        clearTimeout(idleTimer);
        idleTimer = setTimeout(() => {
          if (worker !== w || waiting.size > 0) return;
          w.terminate();
          worker = undefined;
        }, WORKER_IDLE_MS);
      }
    };
    w.onerror = () => {
      // The worker is gone: what it owed, and everything after, is tokenized here.
      worker = null;
      w.terminate();
      for (const job of waiting.values()) void onMainThread(job.code, job.lang).then(job.resolve);
      waiting.clear();
    };
    worker = w;
  } catch {
    worker = null;
  }
  return worker;
}

function highlightAnywhere(code: string, lang: string): Promise<TokLine[] | null> {
  const w = highlightWorker();
  if (!w) return onMainThread(code, lang);
  clearTimeout(idleTimer);
  return new Promise((resolve) => {
    const id = ++nextId;
    waiting.set(id, { code, lang, resolve });
    w.postMessage({ id, code, lang });
  });
}

/** Tokenizes `code`; null when the language is unknown or the input too large. Cached. */
export async function tokenize(code: string, langIn: string | undefined): Promise<TokLine[] | null> {
  const lang = normalizeLang(langIn);
  if (!lang || !canHighlight(code)) return null;
  const key = cacheKey(code, lang);
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  const lines = await highlightAnywhere(code, lang);
  remember(key, lines);
  return lines;
}

/** Synchronous cache peek (so a remounted block paints highlighted at once). */
function peek(code: string, lang: string | undefined): TokLine[] | null | undefined {
  const l = normalizeLang(lang);
  if (!l) return null;
  return cache.get(cacheKey(code, l));
}

/* ------------------------------------------------------------------------------------- hooks */

/** True once the element has come within ~600px of the viewport (stays true). */
export function useNearViewport<T extends Element>(): [React.RefObject<T | null>, boolean] {
  const ref = useRef<T>(null);
  const [seen, setSeen] = useState(false);
  useEffect(() => {
    if (seen) return;
    const el = ref.current;
    if (!el || typeof IntersectionObserver === "undefined") {
      setSeen(true);
      return;
    }
    const io = new IntersectionObserver(
      (entries) => {
        if (entries.some((e) => e.isIntersecting)) {
          setSeen(true);
          io.disconnect();
        }
      },
      { rootMargin: "600px 0px" },
    );
    io.observe(el);
    return () => io.disconnect();
  }, [seen]);
  return [ref, seen];
}

interface Highlighted {
  code: string;
  lang: string | undefined;
  lines: TokLine[];
  src: string[];
}

/**
 * Highlighted token lines for `code`, or null until ready / when not highlightable. While `code`
 * changes (streaming), the previous result is kept and re-highlighting is debounced; callers use
 * `tokensFor` to reuse old tokens only for lines whose text is unchanged.
 */
export function useHighlight(code: string, lang: string | undefined, enabled: boolean): Highlighted | null {
  const [state, setState] = useState<Highlighted | null>(() => {
    const hit = peek(code, lang);
    return hit ? { code, lang, lines: hit, src: code.split("\n") } : null;
  });
  const latest = useRef({ code, lang });
  latest.current = { code, lang };
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const alive = useRef(true);
  useEffect(() => {
    alive.current = true;
    return () => {
      alive.current = false;
      if (timer.current) clearTimeout(timer.current);
      timer.current = null;
    };
  }, []);
  useEffect(() => {
    if (!enabled || !normalizeLang(lang) || !canHighlight(code)) return;
    if (state && state.code === code && state.lang === lang) return;
    if (timer.current) return; // a run is scheduled; it takes the latest text
    // First paint highlights right away; while text keeps changing (streaming), at most every 150ms.
    timer.current = setTimeout(
      () => {
        timer.current = null;
        const { code: c, lang: l } = latest.current;
        void tokenize(c, l).then(
          (lines) => {
            if (!alive.current) return;
            setState(lines ? { code: c, lang: l, lines, src: c.split("\n") } : null);
          },
          () => undefined,
        );
      },
      state ? 150 : 0,
    );
  }, [code, lang, enabled, state]);
  return state;
}

/** Tokens for line `i` whose current text is `text`, when the highlighted source still matches. */
export function tokensFor(h: Highlighted | null, i: number, text: string): TokLine | undefined {
  if (!h) return undefined;
  return h.src[i] === text ? h.lines[i] : undefined;
}

/** Renders one line: highlighted tokens when available, else the plain text. */
export function renderLine(text: string, tokens: TokLine | undefined): ReactNode {
  if (!tokens) return text;
  const out: ReactNode[] = [];
  // Neighbouring tokens of the same look (a keyword and the space after it, say) share one span:
  // each span is a DOM element, and code is most of a long reply's DOM.
  for (let i = 0; i < tokens.length; ) {
    const t = tokens[i]!;
    let content = t.content;
    let j = i + 1;
    for (; j < tokens.length && sameLook(tokens[j]!, t); j++) content += tokens[j]!.content;
    if (!t.light && !t.dark && !t.italic && !t.bold) out.push(content);
    else {
      const style = {
        color: t.light,
        "--shiki-dark": t.dark ?? "var(--sb-fg)",
        fontStyle: t.italic ? "italic" : undefined,
        fontWeight: t.bold ? 600 : undefined,
      } as CSSProperties;
      out.push(
        <span key={i} style={style}>
          {content}
        </span>,
      );
    }
    i = j;
  }
  return out.length === 1 && typeof out[0] === "string" ? out[0] : out;
}

const sameLook = (a: TokLine[number], b: TokLine[number]) =>
  a.light === b.light &&
  a.dark === b.dark &&
  Boolean(a.italic) === Boolean(b.italic) &&
  Boolean(a.bold) === Boolean(b.bold);

/* ----------------------------------------------------------------------------------- component */

export interface CodeBlockProps {
  code: string;
  lang?: string;
  /** Collapse past this many lines with a "Show all N lines" button. */
  maxLines?: number;
  showLineNumbers?: boolean;
  /** Number of the first line (for excerpts). */
  startLine?: number;
  /** Label shown in the corner (defaults to the language). Pass "" to hide. */
  label?: string;
  /** Draw without border/background (when nested in another frame). */
  bare?: boolean;
  /** Wrap long lines instead of scrolling horizontally. */
  wrap?: boolean;
  className?: string;
}

// Inline so that prose styles (`.sb-prose pre`, unlayered) cannot restyle the frame.
const PRE_STYLE: CSSProperties = {
  margin: 0,
  padding: "8px 0",
  border: 0,
  borderRadius: 0,
  background: "transparent",
  fontSize: 12,
  lineHeight: "18px",
};
const CODE_STYLE: CSSProperties = { fontSize: "inherit", background: "none", border: 0, padding: 0 };

export const CodeBlock = memo(function CodeBlock({
  code,
  lang,
  maxLines,
  showLineNumbers = false,
  startLine = 1,
  label,
  bare = false,
  wrap = false,
  className,
}: CodeBlockProps) {
  const [ref, near] = useNearViewport<HTMLDivElement>();
  const [expanded, setExpanded] = useState(false);
  const text = code.endsWith("\n") ? code.slice(0, -1) : code;
  const lines = useMemo(() => text.split("\n"), [text]);
  const hl = useHighlight(text, lang, near);
  const total = lines.length;
  const collapsed = !expanded && maxLines !== undefined && total > maxLines + 3;
  const shown = collapsed ? lines.slice(0, maxLines) : lines;
  const gutterCh = String(startLine + total - 1).length;
  const shownLabel = label ?? normalizeLang(lang) ?? "";

  return (
    <div
      ref={ref}
      className={cx(
        "group/code relative min-w-0 text-[12px] leading-[18px]",
        !bare && "overflow-hidden rounded-md border border-border bg-sunken",
        className,
      )}
    >
      <div className="pointer-events-none absolute right-1 top-1 z-10 flex items-center gap-1 opacity-0 transition-opacity group-hover/code:pointer-events-auto group-hover/code:opacity-100 group-focus-within/code:pointer-events-auto group-focus-within/code:opacity-100">
        {shownLabel ? <span className="font-mono text-[10.5px] text-faint">{shownLabel}</span> : null}
        <CopyButton text={text} label="Copy code" className="bg-sunken/80" />
      </div>
      <pre className={cx("font-mono", wrap ? "whitespace-pre-wrap break-all" : "overflow-x-auto")} style={PRE_STYLE}>
        <code className={cx("block", !wrap && "w-max min-w-full")} style={CODE_STYLE}>
          {shown.map((line, i) =>
            showLineNumbers ? (
              <div key={i} className="flex">
                <span
                  className="shrink-0 select-none pl-3 pr-3 text-right text-faint/70"
                  style={{ width: `calc(${gutterCh}ch + 1.5rem)` }}
                  aria-hidden
                >
                  {startLine + i}
                </span>
                <span className={cx("shiki min-w-0 flex-1 pr-4", wrap ? "whitespace-pre-wrap" : "whitespace-pre")}>
                  {renderLine(line, tokensFor(hl, i, line)) || "\u200b"}
                </span>
              </div>
            ) : (
              // Without a gutter a line is one element (the same box as a lone flex child): code is
              // most of a reply's DOM.
              <div key={i} className={cx("shiki pl-3 pr-4", wrap ? "whitespace-pre-wrap" : "whitespace-pre")}>
                {renderLine(line, tokensFor(hl, i, line)) || "\u200b"}
              </div>
            ),
          )}
        </code>
      </pre>
      {maxLines !== undefined && total > maxLines + 3 ? (
        <button
          type="button"
          onClick={() => setExpanded((v) => !v)}
          className="flex h-7 w-full items-center justify-center border-t border-border text-[11.5px] text-muted hover:bg-raised hover:text-fg"
        >
          {expanded ? "Show less" : `Show all ${total.toLocaleString("en-US")} lines`}
        </button>
      ) : null}
    </div>
  );
});
