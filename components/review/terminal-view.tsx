"use client";
import "@xterm/xterm/css/xterm.css";
import { FitAddon } from "@xterm/addon-fit";
import { Terminal } from "@xterm/xterm";
import { useCallback, useEffect, useRef, useState } from "react";
import type { TerminalFrame, TerminalSummary } from "@/lib/workspace-api";
import { apiGet, apiSend, sessionPath } from "@/lib/client/api-client";
import { useRoleReason } from "@/lib/hooks/use-me";
import { cx } from "../ui/cx";
import { IconX } from "../ui/icons";

/** The console's palette, read from its CSS variables, for the terminal. */
function themeOf(): Record<string, string> {
  const css = getComputedStyle(document.documentElement);
  const v = (name: string) => css.getPropertyValue(name).trim();
  return {
    background: v("--sb-sunken"),
    foreground: v("--sb-fg"),
    cursor: v("--sb-accent"),
    selectionBackground: `${v("--sb-accent")}55`,
    red: v("--sb-err"),
    green: v("--sb-ok"),
    yellow: v("--sb-warn"),
    blue: v("--sb-accent"),
    cyan: v("--sb-info"),
  };
}

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

function Xterm({ url, onExit }: { url: string; onExit(): void }) {
  const host = useRef<HTMLDivElement>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: one terminal per url (the component is keyed by it)
  useEffect(() => {
    const el = host.current;
    if (!el) return;
    const term = new Terminal({
      fontFamily: "ui-monospace, SFMono-Regular, Menlo, Consolas, monospace",
      fontSize: 12.5,
      cursorBlink: true,
      scrollback: 5000,
      theme: themeOf(),
    });
    const fit = new FitAddon();
    term.loadAddon(fit);
    term.open(el);

    // Keys in order, one request at a time; what was typed meanwhile goes in the next one.
    let pending = "";
    let sending = false;
    const pump = async () => {
      if (sending || pending === "") return;
      sending = true;
      const data = pending.slice(0, 60_000);
      pending = pending.slice(data.length);
      try {
        await apiSend("POST", `${url}/input`, { data });
      } catch {
        /* the stream says when the shell is gone */
      }
      sending = false;
      void pump();
    };
    const typed = term.onData((d) => {
      pending += d;
      void pump();
    });

    let lastSize = "";
    const resize = () => {
      try {
        fit.fit();
      } catch {
        return;
      }
      const size = `${term.cols}x${term.rows}`;
      if (size === lastSize) return;
      lastSize = size;
      void apiSend("POST", `${url}/resize`, { cols: term.cols, rows: term.rows }).catch(() => undefined);
    };
    const observer = new ResizeObserver(() => resize());
    observer.observe(el);
    resize();

    const source = new EventSource(`${url}/stream`);
    source.onmessage = (ev) => {
      const frame = JSON.parse(ev.data) as TerminalFrame;
      if ("data" in frame) term.write(frame.data);
      else {
        term.write(`\r\n\x1b[2m[the shell exited with code ${frame.exit}]\x1b[0m\r\n`);
        source.close();
        onExit();
      }
    };
    // Follow the console's theme while open.
    const themeWatch = new MutationObserver(() => {
      term.options.theme = themeOf();
    });
    themeWatch.observe(document.documentElement, { attributes: true, attributeFilter: ["data-theme"] });
    term.focus();
    return () => {
      source.close();
      observer.disconnect();
      themeWatch.disconnect();
      typed.dispose();
      term.dispose();
    };
  }, [url]);
  return <div ref={host} className="min-h-0 flex-1 bg-sunken p-1.5" data-testid="terminal" />;
}
