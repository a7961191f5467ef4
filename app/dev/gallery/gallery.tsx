"use client";
/** Dev gallery: every block kind and tool state, from fixtures, in both themes. */
import { useEffect, useRef, useState, type ReactNode } from "react";
import type { Message } from "@/lib/model";
import { CodeBlock } from "@/components/code/code-block";
import { DiffView } from "@/components/code/diff-view";
import { diffFromStrings } from "@/lib/unified-diff/from-strings";
import { IconMoon, IconSun } from "@/components/ui/icons";
import { BlockView } from "@/components/timeline/block-view";
import { MessageView } from "@/components/timeline/message-view";
import { ToolCard } from "@/components/timeline/tool-card";
import { MARKDOWN, T0, TS_FILE } from "./fixture-texts";
import { conversation, errorMessages, notices, toolStates, userLong } from "./fixtures";

/* ---------------------------------------------------------------------------------- streaming */

function useStreamingDemo(active: boolean): { message: Message; streaming: boolean } {
  const [n, setN] = useState(0);
  const total = MARKDOWN.length;
  // biome-ignore lint/correctness/useExhaustiveDependencies: restarts the demo when its text changes
  useEffect(() => {
    if (!active) return;
    setN(0);
    const t = setInterval(() => setN((v) => (v >= total ? v : v + 9)), 30);
    return () => clearInterval(t);
  }, [active, total]);
  const streaming = active && n < total;
  const shown = active ? MARKDOWN.slice(0, n) : MARKDOWN.slice(0, 420);
  return {
    streaming: streaming || !active,
    message: {
      id: "st",
      sessionId: "s1",
      role: "assistant",
      createdAt: T0,
      model: { provider: "anthropic", id: "claude-sonnet-4-5" },
      agent: "build",
      blocks: [
        { id: "st-r", kind: "reasoning", text: "Plan the answer.", startedAt: T0, endedAt: T0 + 1500 },
        { id: "st-t", kind: "text", text: shown },
      ],
    },
  };
}

/* --------------------------------------------------------------------------------------- page */

function Section({ title, note, children }: { title: string; note?: string; children: ReactNode }) {
  return (
    <section className="flex flex-col gap-3">
      <div className="flex items-baseline gap-3 border-b border-border pb-1.5">
        <h2 className="text-[12px] font-semibold uppercase tracking-wide text-muted">{title}</h2>
        {note ? <span className="text-[12px] text-faint">{note}</span> : null}
      </div>
      {children}
    </section>
  );
}

function ThemeToggle() {
  const [theme, setTheme] = useState<"dark" | "light">("dark");
  useEffect(() => {
    setTheme(document.documentElement.dataset.theme === "light" ? "light" : "dark");
  }, []);
  const flip = () => {
    const next = theme === "dark" ? "light" : "dark";
    document.documentElement.dataset.theme = next;
    try {
      localStorage.setItem("sb-theme", next);
    } catch {
      /* private mode */
    }
    setTheme(next);
  };
  return (
    <button
      type="button"
      onClick={flip}
      data-testid="theme-toggle"
      className="inline-flex h-7 items-center gap-1.5 rounded-md border border-border px-2.5 text-[12px] text-muted hover:bg-raised hover:text-fg"
    >
      {theme === "dark" ? <IconSun size={13} /> : <IconMoon size={13} />}
      {theme === "dark" ? "Light" : "Dark"}
    </button>
  );
}

export function Gallery() {
  const [replay, setReplay] = useState(false);
  const demo = useStreamingDemo(replay);
  const top = useRef<HTMLDivElement>(null);
  return (
    <div className="min-h-full bg-bg text-fg" ref={top}>
      <header className="sticky top-0 z-20 flex h-11 items-center gap-3 border-b border-border bg-panel/90 px-5 backdrop-blur">
        <span className="text-[13px] font-semibold">Switchboard</span>
        <span className="text-[12.5px] text-faint">Timeline component gallery</span>
        <span className="flex-1" />
        <ThemeToggle />
      </header>
      <main className="mx-auto flex max-w-[820px] flex-col gap-10 px-5 pb-24 pt-6">
        <Section title="Conversation" note="user → assistant with reasoning, tools and markdown">
          <div className="flex flex-col gap-5">
            {conversation.map((m) => (
              <MessageView key={m.id} message={m} />
            ))}
            <MessageView message={userLong} />
          </div>
        </Section>

        <Section title="Streaming" note="only the last markdown chunk re-parses">
          <div>
            <button
              type="button"
              onClick={() => setReplay((v) => !v)}
              className="mb-3 inline-flex h-7 items-center rounded-md border border-border px-2.5 text-[12px] text-muted hover:bg-raised hover:text-fg"
            >
              {replay ? "Stop replay" : "Replay streaming"}
            </button>
            <MessageView message={demo.message} streaming={demo.streaming} />
          </div>
          <MessageView message={errorMessages[2]!} streaming />
        </Section>

        <Section title="Tool states">
          <div className="flex flex-col gap-2">
            {toolStates.map((b) => (
              <ToolCard key={b.id} block={b} />
            ))}
          </div>
        </Section>

        <Section title="Notices & files">
          <div className="flex flex-col gap-2">
            {notices.map((b) => (
              <BlockView key={b.id} block={b} />
            ))}
          </div>
        </Section>

        <Section title="Message errors">
          <div className="flex flex-col gap-5">
            <MessageView message={errorMessages[0]!} />
            <MessageView message={errorMessages[1]!} />
          </div>
        </Section>

        <Section title="Untrusted content" note="must render as inert text">
          <MessageView message={errorMessages[3]!} />
        </Section>

        <Section title="Code primitives">
          <CodeBlock code={TS_FILE} lang="ts" showLineNumbers />
          <CodeBlock
            code={Array.from({ length: 60 }, (_, i) => `line ${i + 1}: ${"lorem ipsum ".repeat(i % 7)}`).join("\n")}
            maxLines={8}
            showLineNumbers
          />
          <DiffView
            patch={diffFromStrings(
              "lib/hooks/next-delay.ts",
              TS_FILE,
              TS_FILE.replace("block.text + delta", "block.text.concat(delta)").replace("nonnegative()", "min(0)"),
            )}
            path="lib/hooks/next-delay.ts"
            header
          />
        </Section>
      </main>
    </div>
  );
}
