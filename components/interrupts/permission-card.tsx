"use client";
import { useState } from "react";
import type { InterruptAnswer } from "@/lib/api";
import type { Interrupt } from "@/lib/model";
import { apiSend, sessionPath } from "@/lib/client/api-client";
import { cx } from "../ui/cx";
import { IconShield } from "../ui/icons";
import { Spinner } from "../ui/spinner";

const TEST_IDS: Record<string, string> = {
  allow_once: "permission-allow-once",
  allow_always: "permission-allow-always",
  reject: "permission-reject",
};

/**
 * A pending permission request: what the agent wants to do and the options it offers, exactly as it
 * sent them. Answering calls `POST …/interrupts/:id`; the card goes away when `interrupt.resolved`
 * arrives. Nothing is ever answered on the user's behalf.
 */
export function PermissionCard({ backendId, interrupt }: { backendId: string; interrupt: Interrupt }) {
  const [pending, setPending] = useState<string>();
  const [error, setError] = useState<string>();
  const perm = interrupt.permission;

  const answer = async (key: string, body: InterruptAnswer) => {
    setPending(key);
    setError(undefined);
    try {
      await apiSend("POST", `${sessionPath(backendId, interrupt.sessionId)}/interrupts/${encodeURIComponent(interrupt.id)}`, body);
    } catch (err) {
      setError(err instanceof Error ? err.message : "Could not send the answer");
      setPending(undefined);
    }
  };

  return (
    <div
      role="group"
      aria-label="Permission request"
      data-testid="permission-card"
      data-interrupt-id={interrupt.id}
      className="rounded-lg border border-warn/40 bg-warn/[0.07] px-3.5 py-3 text-[13px]"
    >
      <div className="flex items-start gap-2">
        <IconShield className="mt-0.5 size-4 shrink-0 text-warn" />
        <div className="min-w-0 flex-1">
          <div className="text-[12px] font-medium uppercase tracking-wide text-warn">Permission requested{perm?.action ? ` · ${perm.action}` : ""}</div>
          <div className="mt-0.5 font-medium text-fg [overflow-wrap:anywhere]">{interrupt.title}</div>
          {perm && perm.patterns.length > 0 && (
            <pre className="mt-1.5 max-h-32 overflow-auto whitespace-pre-wrap rounded border border-border bg-sunken px-2 py-1 font-mono text-[12px] text-fg [overflow-wrap:anywhere]">
              {perm.patterns.join("\n")}
            </pre>
          )}
        </div>
      </div>
      <div className="mt-2.5 flex flex-wrap items-center gap-2 pl-6">
        {(perm?.options ?? []).map((o) => (
          <button
            key={o.id}
            type="button"
            disabled={pending !== undefined}
            data-testid={TEST_IDS[o.kind]}
            onClick={() => void answer(o.id, { decision: o.kind })}
            className={cx(
              "inline-flex h-7 items-center gap-1.5 rounded-md border px-2.5 text-[12.5px] font-medium disabled:opacity-50",
              o.kind === "reject" ? "border-border bg-panel text-fg hover:bg-raised" : o.kind === "allow_once" ? "border-accent bg-accent text-accent-fg hover:opacity-90" : "border-accent/40 bg-accent/10 text-accent hover:bg-accent/15",
            )}
          >
            {pending === o.id && <Spinner size={11} />}
            {o.label}
          </button>
        ))}
        <button
          type="button"
          disabled={pending !== undefined}
          onClick={() => void answer("dismiss", { dismiss: true })}
          className="ml-auto h-7 rounded-md px-2 text-[12px] text-muted hover:bg-raised hover:text-fg disabled:opacity-50"
          data-testid="permission-dismiss"
          title="Answer neither: the agent is told the request was cancelled"
        >
          Dismiss
        </button>
      </div>
      {error && <p className="mt-2 pl-6 text-[12px] text-err" role="alert">{error}</p>}
    </div>
  );
}
