"use client";
import type { Message, Session, Usage } from "@/lib/model";
import { compactNumber, formatCost } from "@/lib/format";
import { contextTokens, currentContext } from "@/lib/timeline/selectors";
import { cx } from "../ui/cx";
import { Popover } from "../ui/popover";

function Row({ label, value, strong }: { label: string; value: string; strong?: boolean }) {
  return (
    <div className="flex items-center justify-between gap-6 py-0.5">
      <span className="text-muted">{label}</span>
      <span className={cx("font-mono tabular-nums", strong ? "text-fg" : "text-muted")}>{value}</span>
    </div>
  );
}

const n = (v: number) => v.toLocaleString("en-US");

/**
 * Tokens in/out, cache, cost and the context in use, for the session (with the last turn in the
 * details). The bar is the context window filled by the newest step.
 */
export function UsageMeter({
  session,
  messages,
  contextWindow: modelWindow,
}: {
  session: Session;
  messages: Message[];
  contextWindow?: number;
}) {
  const u = session.usage;
  const ctx = currentContext(messages);
  // A backend that reports the context itself (ACP `usage_update {used, size}`) is the most current
  // source; otherwise the newest step's usage against the model's window from the models list.
  const contextWindow = u?.contextWindow ?? modelWindow;
  const inUse = u?.contextTokens ?? ctx?.tokens;
  if (!u || (!u.inputTokens && !u.outputTokens && inUse === undefined)) return null;
  const cost = formatCost(u.costUsd);
  const cache = (u.cacheReadTokens ?? 0) + (u.cacheWriteTokens ?? 0);
  const pct = inUse !== undefined && contextWindow ? Math.min(100, (inUse / contextWindow) * 100) : undefined;
  const last: Usage | undefined = ctx?.message.usage;
  return (
    <Popover
      testId="usage"
      panelTestId="usage-details"
      title="Usage: tokens, cache, cost and context"
      buttonClassName="font-mono text-[11px] @max-[640px]:hidden"
      panelClassName="w-[260px] p-3 text-[12px]"
      label={
        <>
          {pct !== undefined ? (
            <span className="flex items-center gap-1.5" data-testid="context-meter" data-percent={Math.round(pct)}>
              <span className="h-1.5 w-10 overflow-hidden rounded-full bg-raised">
                <span
                  className={cx("block h-full rounded-full", pct > 85 ? "bg-err" : pct > 60 ? "bg-warn" : "bg-accent")}
                  style={{ width: `${Math.max(2, pct)}%` }}
                />
              </span>
              <span>{Math.round(pct)}%</span>
            </span>
          ) : null}
          <span>↑{compactNumber(u.inputTokens)}</span>
          <span>↓{compactNumber(u.outputTokens)}</span>
          {cache > 0 ? <span className="text-faint">⟳{compactNumber(cache)}</span> : null}
          {cost ? <span className="text-fg">{cost}</span> : null}
        </>
      }
    >
      {() => (
        <div>
          <div className="mb-1 text-[11px] font-semibold uppercase tracking-wide text-faint">Session</div>
          <Row label="Input" value={n(u.inputTokens)} strong />
          <Row label="Output" value={n(u.outputTokens)} strong />
          {u.reasoningTokens ? <Row label="Reasoning" value={n(u.reasoningTokens)} /> : null}
          <Row label="Cache read" value={n(u.cacheReadTokens ?? 0)} />
          <Row label="Cache write" value={n(u.cacheWriteTokens ?? 0)} />
          <Row label="Cost" value={u.costUsd !== undefined ? `$${u.costUsd.toFixed(4)}` : "—"} strong />
          <div className="my-2 h-px bg-border" />
          <div className="mb-1 text-[11px] font-semibold uppercase tracking-wide text-faint">Context</div>
          <Row label="In use" value={inUse !== undefined ? n(inUse) : "—"} strong />
          <Row label="Window" value={contextWindow ? n(contextWindow) : "unknown"} />
          {pct !== undefined ? (
            <div className="mt-1.5 h-1.5 overflow-hidden rounded-full bg-raised">
              <div
                className={cx("h-full rounded-full", pct > 85 ? "bg-err" : pct > 60 ? "bg-warn" : "bg-accent")}
                style={{ width: `${Math.max(1, pct)}%` }}
              />
            </div>
          ) : null}
          {last ? (
            <>
              <div className="my-2 h-px bg-border" />
              <div className="mb-1 text-[11px] font-semibold uppercase tracking-wide text-faint">Last step</div>
              <Row label="In / out" value={`${n(last.inputTokens)} / ${n(last.outputTokens)}`} />
              <Row label="Context" value={n(contextTokens(last))} />
            </>
          ) : null}
        </div>
      )}
    </Popover>
  );
}
