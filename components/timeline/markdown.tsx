"use client";
/**
 * Markdown from the model, rendered safely and incrementally.
 *
 * Safety: no raw HTML ever reaches the DOM — HTML in the source is shown as literal text (and
 * `skipHtml` stays on as a second fence); links keep an href only for http(s)/mailto and open in a
 * new tab; images are never loaded (their alt text is shown instead, so model text cannot make the
 * browser fetch anything).
 *
 * Streaming: the text is split into top-level blocks at blank lines outside fenced code; each
 * chunk is memoized on its text, so a growing reply only re-parses its last chunk. The split itself
 * is incremental (lib/timeline/markdown-chunks.ts): when the text only grew, only its open tail is
 * split again, so a delta costs the tail, not the whole reply.
 */
import { memo, useRef, type ReactNode } from "react";
import { splitIncremental, type MarkdownChunk } from "@/lib/timeline/markdown-chunks";
import ReactMarkdown, { type Components } from "react-markdown";
import remarkGfm from "remark-gfm";
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

interface MdNode {
  type: string;
  value?: string;
  children?: MdNode[];
}

/**
 * A remark plugin: raw HTML nodes become literal text, so `<img onerror>` shows as typed. Block-level
 * HTML (a direct child of the root or a container) becomes a paragraph of text.
 */
function remarkHtmlAsText() {
  return (tree: MdNode) => {
    const walk = (n: MdNode) => {
      const kids = n.children;
      if (!kids) return;
      const flow = n.type === "root" || n.type === "blockquote" || n.type === "listItem";
      for (let i = 0; i < kids.length; i++) {
        const c = kids[i]!;
        if (c.type === "html") {
          kids[i] = flow
            ? { type: "paragraph", children: [{ type: "text", value: c.value ?? "" }] }
            : { type: "text", value: c.value ?? "" };
        } else walk(c);
      }
    };
    walk(tree);
  };
}

const REMARK_PLUGINS = [remarkGfm, remarkHtmlAsText];

function urlTransform(url: string): string | null {
  return safeUrl(url) ?? null;
}

interface HastLike {
  type: string;
  tagName?: string;
  value?: string;
  properties?: Record<string, unknown>;
  children?: HastLike[];
}

function hastText(n: HastLike | undefined): string {
  if (!n) return "";
  if (n.type === "text") return n.value ?? "";
  return (n.children ?? []).map(hastText).join("");
}

function fenceLang(codeEl: HastLike | undefined): string | undefined {
  const cls = codeEl?.properties?.className;
  const list = Array.isArray(cls) ? cls : typeof cls === "string" ? cls.split(" ") : [];
  for (const c of list) {
    if (typeof c === "string" && c.startsWith("language-")) return c.slice("language-".length);
  }
  return undefined;
}

const COMPONENTS: Components = {
  a({ href, children, title }) {
    if (!href) {
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
      <a href={href} title={title ?? href} target="_blank" rel="noopener noreferrer nofollow">
        {children}
      </a>
    );
  },
  img({ alt, src }) {
    const url = typeof src === "string" ? src : undefined;
    return (
      <span
        className="inline-flex items-baseline gap-1 text-accent underline decoration-dotted underline-offset-2"
        title={url ? `Image not loaded: ${url}` : "Image not loaded"}
      >
        <IconImage size={12} className="relative top-[1px] shrink-0 self-center" />
        {alt || "image"}
      </span>
    );
  },
  pre({ node }) {
    const codeEl = (node as HastLike | undefined)?.children?.find((c) => c.type === "element" && c.tagName === "code");
    const code = hastText(codeEl).replace(/\n$/, "");
    return <CodeBlock code={code} lang={fenceLang(codeEl)} maxLines={60} className="my-1" />;
  },
  ul({ children, className }) {
    // GFM task lists: no bullets, the checkbox is the marker.
    const task = typeof className === "string" && className.includes("contains-task-list");
    return <ul style={task ? { listStyle: "none", paddingLeft: "0.2em" } : undefined}>{children}</ul>;
  },
  table({ children }) {
    return (
      <div className="max-w-full overflow-x-auto">
        <table>{children}</table>
      </div>
    );
  },
  input({ checked, type }) {
    // GFM task list items: a static, non-interactive checkbox.
    if (type !== "checkbox") return null;
    return (
      <input
        type="checkbox"
        checked={Boolean(checked)}
        readOnly
        disabled
        className="mr-1.5 translate-y-[1px] accent-accent"
      />
    );
  },
};

const Chunk = memo(function Chunk({ text }: { text: string }) {
  return (
    <ReactMarkdown remarkPlugins={REMARK_PLUGINS} skipHtml urlTransform={urlTransform} components={COMPONENTS}>
      {text}
    </ReactMarkdown>
  );
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
