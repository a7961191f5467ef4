"use client";
import "@xterm/xterm/css/xterm.css";
import { FitAddon } from "@xterm/addon-fit";
import { Terminal } from "@xterm/xterm";
import { useEffect, useRef } from "react";
import type { TerminalFrame } from "@/lib/workspace-api";
import { apiSend } from "@/lib/client/api-client";

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
 * xterm.js on one terminal's routes (`url`: …/terminals/{id} or …/login-terminal/{id}): output as
 * Server-Sent Events (EventSource resumes with `Last-Event-ID`), keys in order, one request at a
 * time, and the size follows the element. `onExit` gets the process's exit code. Loaded on demand
 * (the session page's terminal tab, Settings' login terminal): xterm.js stays out of first loads.
 */
export function Xterm({ url, onExit, what = "the shell" }: { url: string; onExit(code: number): void; what?: string }) {
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
        term.write(`\r\n\x1b[2m[${what} exited with code ${frame.exit}]\x1b[0m\r\n`);
        source.close();
        onExit(frame.exit);
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
