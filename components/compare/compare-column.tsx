"use client";
import Link from "next/link";
import { useMemo } from "react";
import type { CompareView } from "@/lib/compare-api";
import { useSessionStream } from "@/lib/hooks/use-session-stream";
import { condense, figures } from "@/lib/timeline/condense";
import { shownStatus } from "@/lib/timeline/selectors";
import { SessionStatusGlyph, statusLabel } from "../shell/status-dot";
import { cx } from "../ui/cx";
import { CompareLive } from "./compare-live";

type Column = CompareView["columns"][number];
type Member = CompareView["members"][number];

const seconds = (ms: number) =>
  ms < 60_000 ? `${Math.round(ms / 1000)} s` : `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;

/**
 * One session of a comparison: its status and figures, its live timeline condensed (followed on the
 * tab's shared live stream, the session page's own store and reducer), the files it changed, its
 * test result, and Keep.
 */
export function CompareColumn({
  c,
  m,
  kept,
  keptCommit,
  keepReason,
  onKeep,
  file,
  onFile,
}: {
  c: Column;
  m: Member;
  kept: boolean;
  keptCommit?: string;
  /** Why Keep is not possible (undefined: it is). */
  keepReason?: string;
  onKeep(): void;
  file: string | null;
  onFile(path: string): void;
}) {
  const { view } = useSessionStream(c.backendId, c.sessionId);
  const { session, messages, interrupts } = view.state;
  const rows = useMemo(() => condense(messages, interrupts), [messages, interrupts]);
  // The live status where the stream has it, else the one the group's view polled.
  const status = view.loaded && session ? shownStatus(session.status, interrupts.length) : c.status;
  const href = `/sessions/${encodeURIComponent(c.backendId)}/${encodeURIComponent(c.sessionId)}`;
  const busy = status === "busy" || status === "retry" || status === "waiting";
  // Duration, tokens and cost follow the stream too (the polled view's until it is in).
  const fig = useMemo(
    () => (view.loaded ? figures(messages, session?.status === "idle") : c),
    [view.loaded, messages, session?.status, c],
  );
  const startedAt = fig.startedAt ?? c.startedAt;
  const running = status === "busy" || status === "retry";
  return (
    <section
      className={cx("flex min-w-0 flex-col gap-2 bg-panel p-3", m.archived && "opacity-60")}
      data-testid="compare-column"
      data-session-id={c.sessionId}
      data-status={status}
      aria-label={c.backendLabel}
    >
      <div className="flex items-center gap-2">
        {status !== "gone" ? <SessionStatusGlyph status={status} /> : null}
        <span className="truncate text-[13px] font-semibold text-fg">{c.backendLabel}</span>
        {m.target.model ? <span className="truncate font-mono text-[11px] text-faint">{m.target.model.id}</span> : null}
        <span className="ml-auto shrink-0 text-[11.5px] text-faint">
          {fig.endedAt && !busy ? seconds(fig.endedAt - startedAt) : status === "gone" ? "gone" : statusLabel(status)}
        </span>
      </div>
      <div className="flex flex-wrap gap-x-3 text-[11.5px] text-faint">
        {fig.tokens ? (
          <span>
            {fig.tokens.input.toLocaleString("en-US")} in · {fig.tokens.output.toLocaleString("en-US")} out
          </span>
        ) : null}
        {fig.costUsd ? <span>${fig.costUsd.toFixed(4)}</span> : null}
        <span className="truncate font-mono" title={m.worktree.path}>
          {m.worktree.branch}
        </span>
      </div>
      {m.error ? <p className="text-[12px] text-err">{m.error}</p> : null}
      {view.loaded ? (
        <CompareLive rows={rows} href={href} placeholder={busy ? "Working…" : "Nothing yet."} />
      ) : (
        // Until the stream is in: the reply the group's view carried.
        <div className="h-[320px] overflow-y-auto rounded-md border border-border bg-sunken px-2 py-1.5 text-[12px]">
          <p className="whitespace-pre-wrap break-words text-muted" data-testid="compare-reply">
            {c.reply || (view.loadError ? view.loadError.message : "Loading…")}
          </p>
        </div>
      )}
      <div>
        <h3 className="text-[11px] font-semibold uppercase tracking-wide text-faint">
          Changed {c.files.length ? c.files.length : ""}
        </h3>
        <ul className="mt-1 space-y-0.5">
          {c.files.map((f) => (
            <li key={f.path}>
              <button
                type="button"
                onClick={() => onFile(f.path)}
                className={cx(
                  "w-full truncate text-left font-mono text-[12px] hover:text-fg",
                  file === f.path ? "text-accent" : "text-muted",
                )}
                data-testid="compare-file"
                data-path={f.path}
              >
                {f.status === "added" ? "A " : f.status === "deleted" ? "D " : "M "}
                {f.path}
              </button>
            </li>
          ))}
          {c.files.length === 0 ? <li className="text-[12px] text-faint">none</li> : null}
        </ul>
      </div>
      {m.test ? (
        <details className="text-[12px]" data-testid="compare-test" data-exit={m.test.exitCode ?? ""}>
          <summary
            className={cx(
              "cursor-pointer",
              m.test.state === "running" ? "text-muted" : m.test.exitCode === 0 ? "text-ok" : "text-err",
            )}
          >
            {m.test.state === "running"
              ? "Tests running…"
              : m.test.exitCode === 0
                ? "Tests passed"
                : `Tests failed (exit ${m.test.exitCode ?? "?"})`}
          </summary>
          <pre className="mt-1 max-h-48 overflow-auto whitespace-pre-wrap rounded bg-sunken p-2 font-mono text-[11.5px] text-muted">
            {m.test.output || "(no output)"}
          </pre>
        </details>
      ) : null}
      <div className="mt-auto flex items-center gap-2 pt-1">
        <Link
          href={href}
          className="rounded-md border border-border px-2.5 py-1 text-[12px] text-muted hover:bg-raised hover:text-fg"
        >
          Open
        </Link>
        {kept ? (
          <span className="text-[12px] font-medium text-ok" data-testid="compare-kept">
            Kept{keptCommit ? ` · merged ${keptCommit.slice(0, 8)}` : ""}
          </span>
        ) : m.archived ? (
          <span className="text-[12px] text-faint">Archived (branch kept)</span>
        ) : (
          <button
            type="button"
            disabled={!!keepReason || running}
            title={
              keepReason ??
              (running ? "Its turn is still running" : "Merge this one's branch into the base; archive the others")
            }
            onClick={onKeep}
            className="rounded-md bg-accent px-2.5 py-1 text-[12px] font-medium text-accent-fg hover:brightness-110 disabled:opacity-45"
            data-testid="compare-keep"
          >
            Keep
          </button>
        )}
      </div>
    </section>
  );
}
