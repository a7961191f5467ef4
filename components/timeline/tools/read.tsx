"use client";
import { useMemo } from "react";
import type { ToolBlock } from "@/lib/model";
import { CodeBlock } from "@/components/code/code-block";
import { guessLang } from "@/lib/code-languages";
import { FilePath } from "@/components/ui/file-path";
import { IconFolder } from "@/components/ui/icons";
import { Frame, QuietLine, parseReadOutput, toolPath } from "./shared";

/** The file's content, highlighted by its extension, starting at the line the read began. */
export function ReadBody({ block }: { block: ToolBlock }) {
  const path = toolPath(block);
  const parsed = useMemo(() => (block.output ? parseReadOutput(block.output) : null), [block.output]);
  if (!parsed) return null;
  if (parsed.kind === "dir") {
    return (
      <div className="flex flex-col gap-1">
        <Frame className="max-h-72 overflow-y-auto py-1">
          {parsed.entries.map((e, i) => (
            <div key={i} className="flex h-[22px] items-center gap-2 px-3 text-[12.5px]">
              {e.endsWith("/") ? (
                <IconFolder size={13} className="shrink-0 text-faint" />
              ) : (
                <span className="w-[13px]" />
              )}
              <FilePath path={e} />
            </div>
          ))}
        </Frame>
        {parsed.note ? <QuietLine>{parsed.note}</QuietLine> : null}
      </div>
    );
  }
  if (parsed.text === "") return <QuietLine>{parsed.note ?? "Empty file"}</QuietLine>;
  return (
    <div className="flex flex-col gap-1">
      <CodeBlock
        code={parsed.text}
        lang={guessLang(path)}
        showLineNumbers
        startLine={parsed.startLine}
        maxLines={24}
        label=""
      />
      {parsed.note ? <QuietLine>{parsed.note}</QuietLine> : null}
    </div>
  );
}
