"use client";
import { useCallback, useEffect, useState } from "react";
import type { TerminalSummary } from "@/lib/workspace-api";
import { apiGet, apiSend, sessionPath } from "@/lib/client/api-client";
import { useRoleReason } from "@/lib/hooks/use-me";
import { cx } from "../ui/cx";
import { IconX } from "../ui/icons";
import { Xterm } from "./xterm-view";

/**
 * A terminal in the session's directory (docs/workspace.md): xterm.js on the console's terminal
 * routes. Output comes as Server-Sent Events (EventSource resumes with `Last-Event-ID`), keys go in
 * order, one request at a time, and the size follows the panel. Loaded on demand with its tab.
 */
export function TerminalView({ backendId, sessionId }: { backendId: string; sessionId: string }) {
  const base = `${sessionPath(backendId, sessionId)}/terminals`;
  const roleReason = useRoleReason("operate");
  const [list, setList] = useState<TerminalSummary[] | null>(null);
  const [active, setActive] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const refresh = useCallback(async () => {
    const r = await apiGet<{ items: TerminalSummary[] }>(base);
    setList(r.items);
    return r.items;
  }, [base]);

  const open = useCallback(async () => {
    setError(null);
    try {
      const { id } = await apiSend<{ id: string }>("POST", base, { cols: 80, rows: 24 });
      await refresh();
      setActive(id);
    } catch (err) {
      setError(err instanceof Error ? err.message : "Could not open a terminal");
    }
  }, [base, refresh]);

  // On first show: attach to the session's open terminal, or open one.
  // biome-ignore lint/correctness/useExhaustiveDependencies: once per session
  useEffect(() => {
    if (roleReason) return;
    let cancelled = false;
    void refresh()
      .then((items) => {
        if (cancelled) return;
        const live = items.find((t) => t.exitCode === undefined);
        if (live) setActive(live.id);
        else void open();
      })
      .catch((err: unknown) => setError(err instanceof Error ? err.message : "Could not list the terminals"));
    return () => {
      cancelled = true;
    };
  }, [base, roleReason]);

  const close = async (id: string) => {
    try {
      await apiSend("DELETE", `${base}/${encodeURIComponent(id)}`);
    } catch (err) {
      setError(err instanceof Error ? err.message : "Could not close the terminal");
    }
    const items = await refresh();
    setActive(items.find((t) => t.exitCode === undefined)?.id ?? null);
  };

  if (roleReason)
    return (
      <div
        className="grid flex-1 place-items-center p-6 text-center text-[12.5px] text-muted"
        data-testid="terminal-panel"
      >
        {roleReason}
      </div>
    );

  return (
    <div className="flex min-h-0 flex-1 flex-col" data-testid="terminal-panel">
      <div className="flex h-8 shrink-0 items-center gap-1 border-b border-border px-2 text-[12px]">
        {(list ?? []).map((t, i) => (
          <span
            key={t.id}
            className={cx(
              "inline-flex h-6 items-center gap-1 rounded px-2",
              t.id === active ? "bg-raised text-fg" : "text-muted hover:text-fg",
            )}
          >
            <button
              type="button"
              onClick={() => setActive(t.id)}
              data-testid="terminal-tab"
              data-terminal-id={t.id}
              title={t.cwd}
            >
              {i + 1}
              {t.exitCode !== undefined ? ` (exited ${t.exitCode})` : ""}
            </button>
            <button
              type="button"
              onClick={() => void close(t.id)}
              aria-label={`Close terminal ${i + 1}`}
              data-testid="terminal-close"
              className="text-faint hover:text-fg"
            >
              <IconX size={11} />
            </button>
          </span>
        ))}
        <button
          type="button"
          onClick={() => void open()}
          className="rounded px-2 text-muted hover:bg-raised hover:text-fg"
          data-testid="terminal-new"
          title="Open another terminal in the session's directory (at most 4)"
        >
          + New
        </button>
        {list?.[0] ? (
          <span className="ml-auto truncate font-mono text-[11px] text-faint" title={list[0].cwd}>
            {list[0].cwd}
          </span>
        ) : null}
      </div>
      {error ? (
        <p
          role="alert"
          className="border-b border-border px-3 py-1.5 text-[12px] text-err"
          data-testid="terminal-error"
        >
          {error}
        </p>
      ) : null}
      {active ? (
        <Xterm key={active} url={`${base}/${encodeURIComponent(active)}`} onExit={() => void refresh()} />
      ) : (
        <div className="grid flex-1 place-items-center text-[12.5px] text-faint">No terminal open.</div>
      )}
    </div>
  );
}
