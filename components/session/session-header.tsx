"use client";
import type { ReactNode } from "react";
import type { Backend, Session } from "@/lib/model";
import type { ConnectionState } from "@/lib/client/sse-client";
import { compactNumber, formatCost } from "@/lib/format";
import { cx } from "../ui/cx";
import { IconFolder } from "../ui/icons";
import { SessionStatusGlyph, statusLabel } from "../shell/status-dot";

export type LinkState = "connected" | "reconnecting" | "down";

export function linkState(connection: ConnectionState, backend: Backend | undefined): LinkState {
  if (backend && backend.status !== "ready") return backend.status === "connecting" ? "reconnecting" : "down";
  return connection === "connected" ? "connected" : "reconnecting";
}

const LINK_TEXT: Record<LinkState, string> = { connected: "Live", reconnecting: "Reconnecting…", down: "Backend down" };

export function ConnectionIndicator({ state, detail }: { state: LinkState; detail?: string }) {
  return (
    <span
      data-testid="connection"
      data-state={state}
      title={detail ?? LINK_TEXT[state]}
      className={cx(
        "inline-flex h-6 items-center gap-1.5 rounded-full border px-2 text-[11px] font-medium",
        state === "connected" && "border-border text-muted",
        state === "reconnecting" && "border-warn/40 bg-warn/10 text-warn",
        state === "down" && "border-err/40 bg-err/10 text-err",
      )}
    >
      <span className={cx("size-1.5 rounded-full", state === "connected" ? "bg-ok" : state === "reconnecting" ? "bg-warn animate-pulse" : "bg-err")} />
      {LINK_TEXT[state]}
    </span>
  );
}

export function UsageMeter({ session }: { session: Session }) {
  const u = session.usage;
  if (!u || (!u.inputTokens && !u.outputTokens)) return null;
  const cost = formatCost(u.costUsd);
  const cache = (u.cacheReadTokens ?? 0) + (u.cacheWriteTokens ?? 0);
  return (
    <span
      className="hidden items-center gap-2 font-mono text-[11px] text-muted md:inline-flex"
      data-testid="usage"
      title={`Input ${u.inputTokens} · output ${u.outputTokens}${u.reasoningTokens ? ` · reasoning ${u.reasoningTokens}` : ""}${cache ? ` · cache ${cache}` : ""}${cost ? ` · ${cost}` : ""}`}
    >
      <span>↑{compactNumber(u.inputTokens)}</span>
      <span>↓{compactNumber(u.outputTokens)}</span>
      {cache > 0 && <span className="text-faint">cache {compactNumber(cache)}</span>}
      {cost && <span className="text-fg">{cost}</span>}
    </span>
  );
}

export function SessionHeader({
  session,
  backend,
  link,
  linkDetail,
  actions,
}: {
  session: Session | null;
  backend: Backend | undefined;
  link: LinkState;
  linkDetail?: string;
  /** Buttons shown before the connection indicator (e.g. Share). */
  actions?: ReactNode;
}) {
  return (
    <header className="flex h-14 shrink-0 items-center gap-3 border-b border-border bg-panel px-4">
      <div className="min-w-0 flex-1">
        <div className="flex items-center gap-2">
          {session && <SessionStatusGlyph status={session.status} />}
          <h1 className="truncate text-[14px] font-semibold" data-testid="session-title">
            {session?.title ?? "Loading…"}
          </h1>
          {session && (
            <span className="shrink-0 text-[11px] text-faint" data-testid="session-status" data-status={session.status}>
              {statusLabel(session.status)}
            </span>
          )}
        </div>
        <div className="mt-0.5 flex items-center gap-2 truncate text-[11px] text-faint">
          {backend && <span>{backend.label}</span>}
          {session?.directory && (
            <span className="inline-flex min-w-0 items-center gap-1 truncate" title={session.directory}>
              <IconFolder className="size-3 shrink-0" />
              <span className="truncate">{session.directory}</span>
            </span>
          )}
          {session?.model && <span className="font-mono">{session.model.provider ? `${session.model.provider}/` : ""}{session.model.id}</span>}
        </div>
      </div>
      {session && <UsageMeter session={session} />}
      {actions}
      <ConnectionIndicator state={link} {...(linkDetail ? { detail: linkDetail } : {})} />
    </header>
  );
}
