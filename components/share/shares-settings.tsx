"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useState } from "react";
import type { CreateRedactionPatternBody, RedactionSettings, ShareInfo, ShareState } from "@/lib/api";
import { apiGet, apiSend } from "@/lib/client/api-client";
import { relativeTime } from "@/lib/format";
import { Badge, type Tone } from "@/components/ui/badge";
import { cx } from "@/components/ui/cx";
import { IconChevronRight, IconLink, IconShield, IconTrash } from "@/components/ui/icons";
import { Spinner } from "@/components/ui/spinner";
import { SidebarToggle } from "../shell/shell";
import { absoluteTime, expiryText, scopeText } from "./share-format";

const STATE_TONE: Record<ShareState, Tone> = { active: "ok", expired: "neutral", revoked: "neutral" };

function useNow(): number | undefined {
  const [now, setNow] = useState<number>();
  useEffect(() => {
    setNow(Date.now());
    const t = setInterval(() => setNow(Date.now()), 30_000);
    return () => clearInterval(t);
  }, []);
  return now;
}

function SharesList() {
  const qc = useQueryClient();
  const now = useNow();
  const [showEnded, setShowEnded] = useState(false);
  const q = useQuery({
    queryKey: ["shares", "all"],
    queryFn: () => apiGet<{ items: ShareInfo[] }>("/api/shares?state=all"),
    refetchInterval: 30_000,
  });
  const revoke = useMutation({
    mutationFn: (id: string) => apiSend<ShareInfo>("DELETE", `/api/shares/${encodeURIComponent(id)}`),
    onSettled: () => qc.invalidateQueries({ queryKey: ["shares"] }),
  });
  const items = q.data?.items ?? [];
  const active = items.filter((s) => s.state === "active");
  const ended = items.filter((s) => s.state !== "active");
  const rows = showEnded ? [...active, ...ended] : active;

  return (
    <section>
      <div className="flex h-9 items-center gap-2">
        <h2 className="text-[13px] font-semibold">Share links</h2>
        <span className="text-[12px] text-faint">{q.isSuccess ? `${active.length} active` : ""}</span>
        {ended.length > 0 && (
          <button
            type="button"
            onClick={() => setShowEnded((v) => !v)}
            className="ml-auto text-[12px] text-muted hover:text-fg"
            data-testid="shares-show-ended"
          >
            {showEnded ? "Hide ended" : `Show ended (${ended.length})`}
          </button>
        )}
      </div>
      <div className="overflow-hidden rounded-lg border border-border bg-panel">
        <table className="w-full table-fixed text-[12.5px]" data-testid="shares-table">
          <thead>
            <tr className="h-8 border-b border-border text-left text-[11px] font-medium uppercase tracking-wide text-faint">
              <th className="px-3 font-medium">Session</th>
              <th className="w-[30%] px-3 font-medium">Scope</th>
              <th className="w-[15%] px-3 font-medium">Expires</th>
              <th className="w-[14%] px-3 font-medium">Last viewed</th>
              <th className="w-[92px] px-3" />
            </tr>
          </thead>
          <tbody>
            {q.isLoading && (
              <tr>
                <td colSpan={5} className="h-16 text-center text-faint">
                  <Spinner className="inline" />
                </td>
              </tr>
            )}
            {q.isSuccess && rows.length === 0 && (
              <tr>
                <td colSpan={5} className="h-16 px-3 text-center text-[12.5px] text-faint" data-testid="shares-empty">
                  No active share links. Create one with <span className="text-muted">Share</span> in a session&apos;s
                  header.
                </td>
              </tr>
            )}
            {rows.map((s) => (
              <tr
                key={s.id}
                className={cx("h-11 border-b border-border last:border-0", s.state !== "active" && "text-faint")}
                data-testid="share-row"
                data-share-id={s.id}
                data-state={s.state}
              >
                <td className="truncate px-3">
                  <Link
                    href={`/sessions/${encodeURIComponent(s.backendId)}/${encodeURIComponent(s.sessionId)}`}
                    className="font-medium text-fg hover:underline"
                    title={s.sessionTitle}
                  >
                    {s.sessionTitle || s.sessionId}
                  </Link>
                  <div className="truncate text-[11px] text-faint" data-testid="share-created">
                    Created {now ? relativeTime(s.createdAt, now) : ""}
                    {s.createdBy ? ` by ${s.createdBy.name || s.createdBy.id}` : ""}
                  </div>
                </td>
                <td className="truncate px-3 text-muted" title={scopeText(s)}>
                  {scopeText(s)}
                </td>
                <td className="truncate px-3 text-muted" title={s.expiresAt ? absoluteTime(s.expiresAt) : "Never"}>
                  {s.state === "revoked" ? (
                    <Badge tone={STATE_TONE[s.state]}>Revoked</Badge>
                  ) : s.state === "expired" ? (
                    <Badge tone={STATE_TONE[s.state]}>Expired</Badge>
                  ) : now ? (
                    expiryText(s.expiresAt, now).replace(/^Expires in /, "in ")
                  ) : (
                    ""
                  )}
                </td>
                <td
                  className="truncate px-3 text-muted"
                  title={s.lastAccessAt ? absoluteTime(s.lastAccessAt) : undefined}
                >
                  {s.lastAccessAt && now
                    ? `${relativeTime(s.lastAccessAt, now)} · ${s.accessCount} view${s.accessCount === 1 ? "" : "s"}`
                    : "Never"}
                </td>
                <td className="px-3 text-right">
                  {s.state === "active" && (
                    <button
                      type="button"
                      onClick={() => revoke.mutate(s.id)}
                      disabled={revoke.isPending && revoke.variables === s.id}
                      data-testid="share-revoke"
                      className="h-7 rounded-md border border-err/40 px-2.5 text-[12px] font-medium text-err hover:bg-err/10 disabled:opacity-50"
                    >
                      Revoke
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {revoke.error instanceof Error && <p className="mt-2 text-[12px] text-err">{revoke.error.message}</p>}
    </section>
  );
}

function Patterns() {
  const qc = useQueryClient();
  const q = useQuery({
    queryKey: ["redaction-settings"],
    queryFn: () => apiGet<RedactionSettings>("/api/shares/patterns"),
  });
  const [label, setLabel] = useState("");
  const [pattern, setPattern] = useState("");
  const [regex, setRegex] = useState(false);
  const [showBuiltin, setShowBuiltin] = useState(false);
  const add = useMutation({
    mutationFn: (body: CreateRedactionPatternBody) => apiSend("POST", "/api/shares/patterns", body),
    onSuccess: () => {
      setLabel("");
      setPattern("");
      setRegex(false);
    },
    onSettled: () => qc.invalidateQueries({ queryKey: ["redaction-settings"] }),
  });
  const remove = useMutation({
    mutationFn: (id: string) => apiSend("DELETE", `/api/shares/patterns/${encodeURIComponent(id)}`),
    onSettled: () => qc.invalidateQueries({ queryKey: ["redaction-settings"] }),
  });
  const custom = q.data?.custom ?? [];
  const input =
    "h-8 rounded-md border border-border bg-sunken px-2 text-[12.5px] text-fg outline-none placeholder:text-faint focus:border-accent";

  return (
    <section>
      <div className="flex h-9 items-center gap-2">
        <h2 className="text-[13px] font-semibold">Redaction</h2>
        <span className="text-[12px] text-faint">
          Applied by the server to everything a share shows, on top of the built-in rules.
        </span>
      </div>
      <div className="rounded-lg border border-border bg-panel">
        <ul data-testid="patterns-list">
          {custom.length === 0 && <li className="px-3 py-3 text-[12.5px] text-faint">No patterns of your own yet.</li>}
          {custom.map((p) => (
            <li
              key={p.id}
              className="flex h-10 items-center gap-3 border-b border-border px-3 text-[12.5px]"
              data-testid="pattern-row"
            >
              <span className="w-40 shrink-0 truncate font-medium text-fg">{p.label}</span>
              <code className="min-w-0 flex-1 truncate font-mono text-[12px] text-muted">
                {p.regex ? `/${p.pattern}/` : p.pattern}
              </code>
              <Badge mono tone="warn">
                [REDACTED:{p.kind}]
              </Badge>
              <button
                type="button"
                onClick={() => remove.mutate(p.id)}
                className="grid size-7 place-items-center rounded text-faint hover:bg-raised hover:text-err"
                title="Delete pattern"
                aria-label={`Delete pattern ${p.label}`}
              >
                <IconTrash size={13} />
              </button>
            </li>
          ))}
        </ul>
        <form
          className="flex flex-wrap items-center gap-2 p-3"
          onSubmit={(e) => {
            e.preventDefault();
            if (label.trim() && pattern) add.mutate({ label: label.trim(), pattern, regex });
          }}
        >
          <input
            value={label}
            onChange={(e) => setLabel(e.target.value)}
            placeholder="Label"
            maxLength={60}
            className={cx(input, "w-40")}
            data-testid="pattern-label"
          />
          <input
            value={pattern}
            onChange={(e) => setPattern(e.target.value)}
            placeholder={regex ? "Regular expression, e.g. acme-[0-9]{6}" : "Text to hide, e.g. db.internal.acme.corp"}
            maxLength={300}
            className={cx(input, "min-w-0 flex-1 font-mono")}
            data-testid="pattern-value"
          />
          <label className="inline-flex h-8 items-center gap-1.5 text-[12px] text-muted">
            <input
              type="checkbox"
              checked={regex}
              onChange={(e) => setRegex(e.target.checked)}
              className="size-3.5 accent-[var(--sb-accent)]"
              data-testid="pattern-regex"
            />
            Regex
          </label>
          <button
            type="submit"
            disabled={!label.trim() || !pattern || add.isPending}
            className="h-8 rounded-md bg-accent px-3 text-[12.5px] font-medium text-accent-fg hover:opacity-90 disabled:opacity-50"
            data-testid="pattern-add"
          >
            Add pattern
          </button>
          {add.error instanceof Error && (
            <p className="w-full text-[12px] text-err" role="alert" data-testid="pattern-error">
              {add.error.message}
            </p>
          )}
        </form>
      </div>
      <button
        type="button"
        onClick={() => setShowBuiltin((v) => !v)}
        className="mt-2 inline-flex items-center gap-1 text-[12px] text-muted hover:text-fg"
        aria-expanded={showBuiltin}
      >
        <IconChevronRight size={12} className={cx("transition-transform", showBuiltin && "rotate-90")} />
        Built-in rules ({q.data?.builtin.length ?? "…"})
      </button>
      {showBuiltin && (
        <ul className="mt-1 rounded-lg border border-border bg-panel px-3 py-1.5 text-[12px]">
          {q.data?.builtin.map((r, i) => (
            <li key={i} className="flex items-baseline gap-3 py-1">
              <code className="w-36 shrink-0 font-mono text-[11.5px] text-warn">[REDACTED:{r.kind}]</code>
              <span className="text-muted">{r.description}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** Settings → Shares: active links with Revoke, and the user's own redaction patterns. */
export function SharesSettings() {
  return (
    <div className="min-h-0 flex-1 overflow-y-auto" data-testid="shares-settings">
      <header className="flex h-14 items-center gap-2 border-b border-border bg-panel px-4 phone:px-2.5">
        <SidebarToggle />
        <IconLink size={15} className="text-muted" />
        <h1 className="text-[14px] font-semibold">Shares</h1>
        <span className="ml-2 inline-flex min-w-0 items-center gap-1 truncate text-[12px] text-faint phone:hidden">
          <IconShield size={12} /> Links are served by this console; revoking one closes it at once, open pages
          included.
        </span>
      </header>
      <div className="mx-auto flex max-w-[960px] flex-col gap-8 px-4 py-5">
        <SharesList />
        <Patterns />
      </div>
    </div>
  );
}
