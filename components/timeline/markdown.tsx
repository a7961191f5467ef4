"use client";
/**
 * Markdown from the model, rendered safely and incrementally.
 *
 * Parsing: micromark with its GFM extensions (tables, task lists, strikethrough, footnotes, bare
 * links) into an mdast tree, which is turned into React elements here. (react-markdown did the same
 * through remark-rehype, a hast tree and hast-util-to-jsx-runtime with HTML's property tables; going
 * from mdast straight to elements keeps the parser and drops those: issue 46, docs/performance.md.)
 *
 * Safety: no raw HTML ever reaches the DOM — HTML in the source (an `html` node) is shown as literal
 * text; links keep an href only for http(s)/mailto and open in a new tab; images are never loaded
 * (their alt text is shown instead, so model text cannot make the browser fetch anything).
 *
 * Streaming: the text is split into top-level blocks at blank lines outside fenced code; each
 * chunk is memoized on its text, so a growing reply only re-parses its last chunk. The split itself
 * is incremental (lib/timeline/markdown-chunks.ts): when the text only grew, only its open tail is
 * split again, so a delta costs the tail, not the whole reply.
 */
import type { Definition, Nodes, Parents, Root, RootContent, TableRow } from "mdast";
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { gfm } from "micromark-extension-gfm";
import { type CSSProperties, Fragment, memo, useRef, type ReactNode } from "react";
import { splitIncremental, type MarkdownChunk } from "@/lib/timeline/markdown-chunks";
import { CodeBlock } from "@/components/code/code-block";
import { IconImage } from "@/components/ui/icons";
import { cx } from "@/components/ui/cx";

export { splitMarkdownBlocks } from "@/lib/timeline/markdown-chunks";

/* ------------------------------------------------------------------------------------ safety */

const SAFE_URL = /^(https?:|mailto:)/i;

/** Keeps http(s) and mailto URLs; anything else (javascript:, data:, relative…) becomes no URL. */
export function safeUrl(url: string): string | undefined {
  const u = url.trim();
  // Strip control characters / whitespace browsers ignore inside schemes ("java\tscript:").
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this strips
  const probe = u.replace(/[\u0000-\u0020\u007f]/g, "");
  if (!SAFE_URL.test(probe)) return undefined;
  try {
    const parsed = new URL(probe);
    if (!["http:", "https:", "mailto:"].includes(parsed.protocol)) return undefined;
    return parsed.href;
  } catch {
    return undefined;
  }
}

/* ------------------------------------------------------------------------------------ mdast → elements */

function SafeLink({ href, title, children }: { href: string; title?: string | null; children: ReactNode }) {
  const url = safeUrl(href);
  if (!url) {
    return (
      <span
        className="text-muted underline decoration-dotted underline-offset-2"
        title="Link removed (unsafe or relative URL)"
      >
        {children}
      </span>
    );
  }
  return (
    <a href={url} title={title || url} target="_blank" rel="noopener noreferrer nofollow">
      {children}
    </a>
  );
}

function InertImage({ alt, src }: { alt: string; src: string }) {
  return (
    <span
      className="inline-flex items-baseline gap-1 text-accent underline decoration-dotted underline-offset-2"
      title={src ? `Image not loaded: ${src}` : "Image not loaded"}
    >
      <IconImage size={12} className="relative top-[1px] shrink-0 self-center" />
      {alt || "image"}
    </span>
  );
}

/** A GFM task list item's box: static, not interactive. */
function TaskBox({ checked }: { checked: boolean }) {
  return (
    <input type="checkbox" checked={checked} readOnly disabled className="mr-1.5 translate-y-[1px] accent-accent" />
  );
}

const TASK_LIST: CSSProperties = { listStyle: "none", paddingLeft: "0.2em" };

/** What rendering a chunk needs besides the node: its link definitions, and whether a list is tight. */
interface Ctx {
  definitions: Map<string, Definition>;
  /** Inside a tight list's item: its paragraphs render as their content alone. */
  tight: boolean;
}

function children(node: Parents, ctx: Ctx): ReactNode[] {
  return node.children.map((c, i) => render(c as RootContent, i, ctx));
}

/** An mdast node as React elements (`flow`: a child of the root, a blockquote or a list item). */
function render(node: RootContent, key: number, ctx: Ctx, flow = false): ReactNode {
  switch (node.type) {
    case "text":
      return node.value;
    case "paragraph":
      return ctx.tight ? <Fragment key={key}>{children(node, ctx)}</Fragment> : <p key={key}>{children(node, ctx)}</p>;
    case "heading": {
      const H = `h${node.depth}` as const;
      return <H key={key}>{children(node, ctx)}</H>;
    }
    case "emphasis":
      return <em key={key}>{children(node, ctx)}</em>;
    case "strong":
      return <strong key={key}>{children(node, ctx)}</strong>;
    case "delete":
      return <del key={key}>{children(node, ctx)}</del>;
    case "inlineCode":
      return <code key={key}>{node.value}</code>;
    case "break":
      return <br key={key} />;
    case "thematicBreak":
      return <hr key={key} />;
    case "blockquote":
      return (
        <blockquote key={key}>{node.children.map((c, i) => render(c, i, { ...ctx, tight: false }, true))}</blockquote>
      );
    case "code":
      return <CodeBlock key={key} code={node.value} lang={node.lang ?? undefined} maxLines={60} className="my-1" />;
    case "link":
      return (
        <SafeLink key={key} href={node.url} title={node.title}>
          {children(node, ctx)}
        </SafeLink>
      );
    case "linkReference": {
      // micromark makes a reference only of a label the chunk defines (`definitions` holds them all).
      const def = ctx.definitions.get(node.identifier);
      return (
        <SafeLink key={key} href={def?.url ?? ""} title={def?.title}>
          {children(node, ctx)}
        </SafeLink>
      );
    }
    case "image":
      return <InertImage key={key} alt={node.alt ?? ""} src={node.url} />;
    case "imageReference":
      return <InertImage key={key} alt={node.alt ?? ""} src={ctx.definitions.get(node.identifier)?.url ?? ""} />;
    case "list": {
      const tight = !node.spread && node.children.every((it) => !it.spread);
      const items = node.children.map((it, j) => (
        <li key={j} className={it.checked != null ? "task-list-item" : undefined}>
          {it.checked != null && <TaskBox checked={it.checked} />}
          {it.children.map((c, k) => render(c, k, { ...ctx, tight }, true))}
        </li>
      ));
      const style = node.children.some((it) => it.checked != null) ? TASK_LIST : undefined;
      return node.ordered ? (
        <ol key={key} start={node.start != null && node.start !== 1 ? node.start : undefined} style={style}>
          {items}
        </ol>
      ) : (
        <ul key={key} style={style}>
          {items}
        </ul>
      );
    }
    case "table": {
      const [head, ...rows] = node.children;
      const cells = (row: TableRow, Cell: "th" | "td") =>
        row.children.map((c, j) => {
          const a = node.align?.[j];
          return (
            <Cell key={j} style={a ? { textAlign: a } : undefined}>
              {children(c, ctx)}
            </Cell>
          );
        });
      return (
        <div key={key} className="max-w-full overflow-x-auto">
          <table>
            {head && (
              <thead>
                <tr>{cells(head, "th")}</tr>
              </thead>
            )}
            {rows.length > 0 && (
              <tbody>
                {rows.map((row, r) => (
                  <tr key={r}>{cells(row, "td")}</tr>
                ))}
              </tbody>
            )}
          </table>
        </div>
      );
    }
    case "footnoteReference":
      return <sup key={key}>[{node.label ?? node.identifier}]</sup>;
    case "footnoteDefinition":
      return (
        <div key={key} className="text-[12px] text-muted">
          <sup>[{node.label ?? node.identifier}]</sup> {children(node, { ...ctx, tight: true })}
        </div>
      );
    case "html":
      // Raw HTML: shown as typed, as text (a paragraph of it where it stands as a block).
      return flow ? <p key={key}>{node.value}</p> : node.value;
    default:
      // Link definitions (used through `definitions`) and anything unknown render nothing.
      return null;
  }
}

const PARSE_OPTIONS = { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] };

/** The chunk's link definitions, wherever they stand (inside a quote or a list too); the first of a label wins. */
function definitionsOf(root: Root): Map<string, Definition> {
  const defs = new Map<string, Definition>();
  const walk = (n: Nodes) => {
    if (n.type === "definition" && !defs.has(n.identifier)) defs.set(n.identifier, n);
    if ("children" in n) for (const c of n.children) walk(c as Nodes);
  };
  walk(root);
  return defs;
}

const Chunk = memo(function Chunk({ text }: { text: string }) {
  const root = fromMarkdown(text, PARSE_OPTIONS);
  const ctx: Ctx = { definitions: definitionsOf(root), tight: false };
  return <>{root.children.map((c, i) => render(c, i, ctx, true))}</>;
});

export interface MarkdownProps {
  text: string;
  /** The text is still growing: only the last chunk is re-parsed on each change. */
  streaming?: boolean;
  className?: string;
}

export function Markdown({ text, streaming = false, className }: MarkdownProps): ReactNode {
  const prev = useRef<{ text: string; chunks: MarkdownChunk[] } | null>(null);
  if (prev.current?.text !== text) prev.current = { text, chunks: splitIncremental(prev.current, text) };
  const chunks = prev.current.chunks;
  return (
    <div className={cx("sb-prose min-w-0 text-[13.5px]", className)} data-streaming={streaming || undefined}>
      {chunks.map((c, i) => (
        <Chunk key={i} text={c.text} />
      ))}
    </div>
  );
}
