"use client";
import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import type { LoginTerminalBody } from "@/lib/workspace-api";
import { apiSend } from "@/lib/client/api-client";
import { Xterm } from "../review/xterm-view";
import { Modal } from "../ui/modal";

/**
 * Settings → *Run in terminal*: a backend's terminal login in the console's terminal, in a dialog
 * (docs/backends/acp.md#authentication). The server runs the command Settings shows with the agent's
 * environment and restarts the backend when it exits with 0. Loaded on demand with xterm.js.
 */
export default function LoginTerminal({
  backendId,
  methodId,
  title,
  onClose,
}: {
  backendId: string;
  methodId: string;
  title: string;
  onClose(): void;
}) {
  const qc = useQueryClient();
  const base = `/api/backends/${encodeURIComponent(backendId)}/login-terminal`;
  const [term, setTerm] = useState<{ id: string; command?: string } | null>(null);
  const [exit, setExit] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  const opened = useRef<string | null>(null);

  // biome-ignore lint/correctness/useExhaustiveDependencies: one login per dialog
  useEffect(() => {
    let cancelled = false;
    apiSend<{ id: string; command?: string }>("POST", base, {
      methodId,
      cols: 100,
      rows: 24,
    } satisfies LoginTerminalBody)
      .then((t) => {
        opened.current = t.id;
        if (!cancelled) setTerm(t);
      })
      .catch(
        (err: unknown) => !cancelled && setError(err instanceof Error ? err.message : "Could not open a terminal"),
      );
    return () => {
      cancelled = true;
    };
  }, []);

  const close = () => {
    const id = opened.current;
    // a login still running is ended with the dialog
    if (id && exit === null) void apiSend("DELETE", `${base}/${encodeURIComponent(id)}`).catch(() => undefined);
    void qc.invalidateQueries({ queryKey: ["backends"] });
    onClose();
  };

  return (
    // Escape belongs to the login (a TUI may use it): the close button ends the dialog.
    <Modal
      title={title}
      onClose={close}
      escapeCloses={false}
      testId="login-terminal"
      className="h-[min(560px,90dvh)] max-w-[860px]"
    >
      <div className="flex h-8 shrink-0 items-center gap-2 border-b border-border px-3 text-[12px]">
        <span className="truncate font-mono text-muted" data-testid="login-terminal-command">
          {term?.command ?? "Starting…"}
        </span>
        {exit !== null && (
          <span
            className={exit === 0 ? "ml-auto shrink-0 text-ok" : "ml-auto shrink-0 text-err"}
            data-testid="login-terminal-exit"
            data-code={exit}
          >
            {exit === 0 ? "Done: the agent restarts to read the login." : `The login exited with code ${exit}.`}
          </span>
        )}
      </div>
      {error ? (
        <p role="alert" className="px-3 py-2 text-[12.5px] text-err" data-testid="login-terminal-error">
          {error}
        </p>
      ) : term ? (
        <Xterm
          url={`${base}/${encodeURIComponent(term.id)}`}
          what="the login"
          onExit={(code) => {
            setExit(code);
            void qc.invalidateQueries({ queryKey: ["backends"] });
          }}
        />
      ) : (
        <div className="grid flex-1 place-items-center text-[12.5px] text-faint">Opening a terminal…</div>
      )}
    </Modal>
  );
}
