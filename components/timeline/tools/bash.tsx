"use client";
import type { ToolBlock } from "@/lib/model";
import { Badge } from "@/components/ui/badge";
import { Spinner } from "@/components/ui/spinner";
import { Frame, OutputPre, cleanTerminal, inputStr } from "./shared";

/** Exit status chip: ok for 0, err otherwise. */
export function ExitChip({ code }: { code: number }) {
  return (
    <Badge tone={code === 0 ? "ok" : "err"} mono title={`Exit code ${code}`}>
      exit {code}
    </Badge>
  );
}

export function bashCommand(block: ToolBlock): string {
  return (
    inputStr(block, "command", "cmd", "script") ??
    (Array.isArray(block.input.command) ? block.input.command.join(" ") : "")
  );
}

/** `$ command`, then the streamed output (following the tail while it runs) and the exit code. */
export function BashBody({ block }: { block: ToolBlock }) {
  const command = bashCommand(block);
  const description = inputStr(block, "description");
  const running = block.status === "running";
  const output = block.output ? cleanTerminal(block.output).replace(/\n+$/, "") : "";
  return (
    <Frame>
      {description ? (
        <div className="px-3 pt-2 font-mono text-[12px] leading-[18px] text-faint"># {description}</div>
      ) : null}
      <div className="whitespace-pre-wrap px-3 py-2 font-mono text-[12px] leading-[18px] text-fg [overflow-wrap:anywhere]">
        <span className="select-none text-faint">$ </span>
        {command}
      </div>
      {output ? (
        <div data-testid="tool-output">
          <OutputPre text={output} follow={running} className="border-t border-border/60 pt-1.5" />
        </div>
      ) : null}
      {running || block.exitCode !== undefined ? (
        <div className="flex h-7 items-center gap-2 border-t border-border/60 px-3 text-[11.5px] text-faint">
          {running ? (
            <>
              <Spinner size={11} className="text-accent" />
              <span>{output ? "Streaming output…" : "Waiting for output…"}</span>
            </>
          ) : null}
          <span className="flex-1" />
          {block.exitCode !== undefined ? (
            <span data-testid="exit-code">
              <ExitChip code={block.exitCode} />
            </span>
          ) : null}
        </div>
      ) : null}
    </Frame>
  );
}
