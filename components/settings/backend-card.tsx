"use client";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { BackendLogs } from "@/lib/api";
import type { Backend } from "@/lib/model";
import { apiGet, apiSend } from "@/lib/client/api-client";
import { formatCommandLine } from "@/lib/command-line";
import { useRoleReason } from "@/lib/hooks/use-me";
import { Badge } from "../ui/badge";
import { AgentCardView } from "./agent-card-view";
import { ApiKeyForm } from "./api-key-form";
import { AuthMethods } from "./auth-methods";
import { cx } from "../ui/cx";
import { IconChevronRight } from "../ui/icons";

const STATUS_TONE = { ready: "ok", connecting: "warn", down: "err", "auth-required": "warn" } as const;
const STATUS_TEXT = {
  ready: "Ready",
  connecting: "Connecting…",
  down: "Down",
  "auth-required": "Needs login",
} as const;

function Logs({ backendId }: { backendId: string }) {
  const q = useQuery({
    queryKey: ["backend-logs", backendId],
    queryFn: () => apiGet<BackendLogs>(`/api/backends/${encodeURIComponent(backendId)}/logs`),
    refetchInterval: 2000,
  });
  const lines = q.data?.lines ?? [];
  return (
    <pre
      data-testid="backend-logs"
      className="mt-2 max-h-64 overflow-auto whitespace-pre-wrap rounded-md border border-border bg-sunken px-3 py-2 font-mono text-[11.5px] leading-[17px] text-muted [overflow-wrap:anywhere]"
    >
      {q.isLoading ? "Loading…" : lines.length ? lines.join("\n") : "Nothing on stderr yet."}
    </pre>
  );
}

/** One configured backend: status, what it runs (secrets masked), its process, its stderr tail. */
export function BackendCard({ backend }: { backend: Backend }) {
  const qc = useQueryClient();
  const [showLogs, setShowLogs] = useState(false);
  const [confirm, setConfirm] = useState(false);
  const [removing, setRemoving] = useState(false);
  const [error, setError] = useState<string>();
  const [restarting, setRestarting] = useState(false);
  const b = backend;

  const restart = async () => {
    setRestarting(true);
    setError(undefined);
    try {
      await apiSend("POST", `/api/backends/${encodeURIComponent(b.id)}/restart`);
    } catch (err) {
      setError(err instanceof Error ? err.message : "Could not restart it");
    } finally {
      setRestarting(false);
    }
  };
  const removable = b.source === "store";
  const adminReason = useRoleReason("admin");
  const stdio = b.config !== undefined;

  const remove = async () => {
    setRemoving(true);
    setError(undefined);
    try {
      await apiSend("DELETE", `/api/backends/${encodeURIComponent(b.id)}`);
      await qc.invalidateQueries({ queryKey: ["backends"] });
    } catch (err) {
      setError(err instanceof Error ? err.message : "Could not remove it");
      setRemoving(false);
      setConfirm(false);
    }
  };

  return (
    <li className="px-4 py-3" data-testid="backend-row" data-backend-id={b.id} data-status={b.status}>
      <div className="flex items-start gap-3">
        <span
          className={cx(
            "mt-1.5 size-2 shrink-0 rounded-full",
            b.status === "ready"
              ? "bg-ok"
              : b.status === "connecting"
                ? "animate-pulse bg-warn"
                : b.status === "auth-required"
                  ? "bg-warn"
                  : "bg-err",
          )}
        />
        <div className="min-w-0 flex-1">
          <div className="flex flex-wrap items-center gap-2">
            <span className="text-[13.5px] font-medium text-fg">{b.label}</span>
            <Badge mono>{b.kind}</Badge>
            <Badge tone={STATUS_TONE[b.status]} className="" title={b.error}>
              <span data-testid="backend-status">{STATUS_TEXT[b.status]}</span>
            </Badge>
            {b.source && (
              <Badge
                title={
                  b.source === "env"
                    ? "From SWITCHBOARD_BACKENDS"
                    : b.source === "store"
                      ? "Added in the console"
                      : "Started by the console"
                }
              >
                {b.source === "env" ? "environment" : b.source === "store" ? "added here" : "embedded"}
              </Badge>
            )}
            {b.version && <span className="text-[11.5px] text-faint">v{b.version}</span>}
            {b.protocol && (
              <span
                className="text-[11.5px] text-faint"
                data-testid="backend-protocol"
                title="The server contract the console speaks"
              >
                {b.protocol}
              </span>
            )}
          </div>
          {b.error && (
            <p
              className={cx(
                "mt-1 text-[12px] [overflow-wrap:anywhere]",
                b.status === "auth-required" ? "text-warn" : "text-err",
              )}
              data-testid="backend-error"
            >
              {b.error}
            </p>
          )}
          <dl className="mt-1.5 grid grid-cols-[88px_1fr] gap-x-3 gap-y-0.5 text-[12px]">
            {stdio ? (
              <>
                <dt className="text-faint">Command</dt>
                <dd className="truncate font-mono text-muted" title={formatCommandLine(b.config!.command)}>
                  {formatCommandLine(b.config!.command)}
                </dd>
                {b.config!.cwd && (
                  <>
                    <dt className="text-faint">Directory</dt>
                    <dd className="truncate font-mono text-muted">{b.config!.cwd}</dd>
                  </>
                )}
                {b.config!.env && Object.keys(b.config!.env).length > 0 && (
                  <>
                    <dt className="text-faint">Environment</dt>
                    <dd className="flex flex-wrap gap-1 font-mono text-muted" data-testid="backend-env">
                      {Object.entries(b.config!.env).map(([k, v]) => (
                        <span key={k} className="rounded bg-raised px-1">
                          {k}={v}
                        </span>
                      ))}
                    </dd>
                  </>
                )}
                {b.process && (
                  <>
                    <dt className="text-faint">Process</dt>
                    <dd className="text-muted" data-testid="backend-process">
                      {b.process.pid !== undefined ? `pid ${b.process.pid}` : b.process.state}
                      {b.process.restarts > 0
                        ? ` · ${b.process.restarts} restart${b.process.restarts === 1 ? "" : "s"}`
                        : ""}
                      {b.process.lastExit ? ` · last exit: ${b.process.lastExit}` : ""}
                    </dd>
                  </>
                )}
              </>
            ) : (
              b.location && (
                <>
                  <dt className="text-faint">Location</dt>
                  <dd className="truncate font-mono text-muted">{b.location}</dd>
                </>
              )
            )}
            {b.savedRules && (
              <>
                <dt className="text-faint" title="What “Always allow” saved on the server: asked no more">
                  Saved rules
                </dt>
                <dd className="text-muted" data-testid="backend-saved-rules">
                  {b.savedRules.length === 0 ? (
                    <span className="text-faint">none</span>
                  ) : (
                    <ul className="flex flex-wrap gap-1 font-mono">
                      {b.savedRules.map((r) => (
                        <li key={r} className="rounded bg-raised px-1" data-testid="backend-saved-rule">
                          {r}
                        </li>
                      ))}
                    </ul>
                  )}
                </dd>
              </>
            )}
          </dl>
          {b.agent && <AgentCardView card={b.agent} compact />}
          {b.auth && <ApiKeyForm backendId={b.id} providers={b.auth.providers} />}
          {b.authMethods && (
            <AuthMethods backendId={b.id} methods={b.authMethods} needed={b.status === "auth-required"} />
          )}
        </div>
        <div className="flex shrink-0 items-center gap-1.5">
          {stdio && (
            <button
              type="button"
              onClick={() => setShowLogs((v) => !v)}
              data-testid="backend-logs-toggle"
              aria-expanded={showLogs}
              className="inline-flex h-7 items-center gap-1 rounded-md border border-border px-2 text-[12px] text-muted hover:bg-raised hover:text-fg"
            >
              <IconChevronRight size={12} className={cx("transition-transform", showLogs && "rotate-90")} />
              stderr
            </button>
          )}
          {stdio && (
            <button
              type="button"
              onClick={() => void restart()}
              disabled={restarting}
              data-testid="backend-restart"
              title="Restart the agent process (e.g. after logging in to it)"
              className="h-7 rounded-md border border-border px-2.5 text-[12px] text-muted hover:bg-raised hover:text-fg disabled:opacity-50"
            >
              Restart
            </button>
          )}
          {confirm ? (
            <>
              <button
                type="button"
                onClick={() => void remove()}
                disabled={removing}
                data-testid="backend-remove-confirm"
                className="h-7 rounded-md bg-err px-2.5 text-[12px] font-medium text-white hover:opacity-90 disabled:opacity-50"
              >
                {removing ? "Removing…" : "Remove"}
              </button>
              <button
                type="button"
                onClick={() => setConfirm(false)}
                className="h-7 rounded-md px-2 text-[12px] text-muted hover:bg-raised"
              >
                Cancel
              </button>
            </>
          ) : (
            <button
              type="button"
              onClick={() => setConfirm(true)}
              disabled={!removable || Boolean(adminReason)}
              data-testid="backend-remove"
              title={
                adminReason ??
                (removable
                  ? "Remove this backend"
                  : b.source === "env"
                    ? "Configured in SWITCHBOARD_BACKENDS: remove it there"
                    : "Started by the console")
              }
              className="h-7 rounded-md border border-border px-2.5 text-[12px] text-muted hover:border-err/50 hover:text-err disabled:cursor-not-allowed disabled:opacity-40 disabled:hover:border-border disabled:hover:text-muted"
            >
              Remove…
            </button>
          )}
        </div>
      </div>
      {error && <p className="mt-1 pl-5 text-[12px] text-err">{error}</p>}
      {showLogs && <Logs backendId={b.id} />}
    </li>
  );
}
