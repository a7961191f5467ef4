"use client";
import type { ToolBlock } from "@/lib/model";
import { CodeBlock } from "@/components/code/code-block";
import { Frame, Label, OutputPre, inputStr, isRecord, maybeJson, stripReminders, toJson } from "./shared";

/** Output text, as highlighted JSON when it is JSON, else plain text. */
function OutputText({ text }: { text: string }) {
  const json = maybeJson(text);
  if (json !== undefined) return <CodeBlock code={toJson(json)} lang="json" maxLines={30} label="" />;
  return (
    <Frame>
      <OutputPre text={text} />
    </Frame>
  );
}

/** Unknown tools: the input as JSON and the output as text. */
export function GenericBody({ block }: { block: ToolBlock }) {
  const hasInput = Object.keys(block.input).length > 0;
  const out = block.output ? stripReminders(block.output) : "";
  return (
    <div className="flex flex-col gap-2">
      {hasInput ? (
        <div>
          <Label>Input</Label>
          <CodeBlock code={toJson(block.input)} lang="json" maxLines={20} label="" />
        </div>
      ) : null}
      {out ? (
        <div>
          <Label>Output</Label>
          <OutputText text={out} />
        </div>
      ) : null}
    </div>
  );
}

/** Web fetch: the fetched text (never rendered as HTML). */
export function WebfetchBody({ block }: { block: ToolBlock }) {
  if (!block.output) return null;
  return (
    <Frame>
      <OutputPre text={stripReminders(block.output)} maxHeight="max-h-64" />
    </Frame>
  );
}

interface Q {
  header?: string;
  question: string;
  options: string[];
}

function questions(block: ToolBlock): Q[] {
  const qs = block.input.questions;
  if (!Array.isArray(qs)) {
    const q = inputStr(block, "question", "prompt");
    return q ? [{ question: q, options: [] }] : [];
  }
  return qs.filter(isRecord).map((q) => ({
    header: typeof q.header === "string" ? q.header : undefined,
    question: typeof q.question === "string" ? q.question : "",
    options: Array.isArray(q.options)
      ? q.options
          .map((o) => (isRecord(o) && typeof o.label === "string" ? o.label : typeof o === "string" ? o : ""))
          .filter(Boolean)
      : [],
  }));
}

/** The answers OpenCode reports: `"question"="answer"` pairs inside its output sentence. */
function answers(output: string | undefined): Map<string, string> {
  const map = new Map<string, string>();
  if (!output) return map;
  for (const m of output.matchAll(/"((?:[^"\\]|\\.)*)"="((?:[^"\\]|\\.)*)"/g)) map.set(m[1]!, m[2]!);
  return map;
}

export function questionSummary(block: ToolBlock): string {
  const qs = questions(block);
  if (qs.length === 1) return qs[0]!.question;
  return `${qs.length} questions`;
}

export function QuestionBody({ block }: { block: ToolBlock }) {
  const qs = questions(block);
  const ans = answers(block.output);
  return (
    <div className="flex flex-col gap-2.5">
      {qs.map((q, i) => {
        const a = ans.get(q.question);
        const picked = a ? a.split(/,\s*/) : [];
        return (
          <div key={i} className="flex flex-col gap-1">
            {q.header ? (
              <div className="text-[10.5px] font-medium uppercase tracking-wide text-faint">{q.header}</div>
            ) : null}
            <div className="text-[13px] text-fg">{q.question}</div>
            {q.options.length > 0 ? (
              <div className="flex flex-wrap gap-1">
                {q.options.map((o) => {
                  const chosen = picked.includes(o);
                  return (
                    <span
                      key={o}
                      className={
                        chosen
                          ? "inline-flex h-[22px] items-center rounded border border-accent/40 bg-accent/10 px-2 text-[12px] text-accent"
                          : "inline-flex h-[22px] items-center rounded border border-border px-2 text-[12px] text-muted"
                      }
                    >
                      {o}
                    </span>
                  );
                })}
              </div>
            ) : null}
            {a && !q.options.includes(a) && !picked.every((p) => q.options.includes(p)) ? (
              <div className="text-[12.5px] text-muted">
                Answer: <span className="text-fg">{a}</span>
              </div>
            ) : null}
          </div>
        );
      })}
      {ans.size === 0 && block.output ? <div className="text-[12.5px] text-muted">{block.output}</div> : null}
    </div>
  );
}
