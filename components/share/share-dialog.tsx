"use client";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useId, useMemo, useRef, useState, type ReactNode } from "react";
import type { CreateShareBody, CreatedShare, ShareInfo, SharePreview, SharePreviewBody } from "@/lib/api";
import type { Message } from "@/lib/model";
import { apiGet, apiSend } from "@/lib/client/api-client";
import { cx } from "@/components/ui/cx";
import { IconLink, IconX } from "@/components/ui/icons";
import { Spinner } from "@/components/ui/spinner";
import { useFocusTrap } from "@/components/ui/use-focus-trap";
import { absoluteTime } from "./share-format";
import { RedactionPreview } from "./redaction-preview";
import { ShareResult } from "./share-result";

type Expiry = "1h" | "1d" | "7d" | "never";
const EXPIRIES: { id: Expiry; label: string; ms: number | null }[] = [
  { id: "1h", label: "1 hour", ms: 3_600_000 },
  { id: "1d", label: "1 day", ms: 86_400_000 },
  { id: "7d", label: "7 days", ms: 7 * 86_400_000 },
  { id: "never", label: "Never", ms: null },
];

/** A one-line label for a message in the "up to" picker. */
function messageLabel(m: Message, n: number): string {
  const text = m.blocks
    .map((b) => (b.kind === "text" ? b.text : b.kind === "tool" ? `[${b.tool}]` : ""))
    .join(" ")
    .replace(/\s+/g, " ")
    .trim();
  const who = m.role === "user" ? "You" : m.role === "assistant" ? "Agent" : "System";
  return `#${n} · ${who}: ${text.slice(0, 70) || "(no text)"}${text.length > 70 ? "…" : ""}`;
}

function Segmented<T extends string>({
  value,
  options,
  onChange,
  name,
}: {
  value: T;
  options: readonly { id: NoInfer<T>; label: string }[];
  onChange(v: NoInfer<T>): void;
  name: string;
}) {
  return (
    <div
      className="inline-flex h-7 rounded-md border border-border bg-sunken p-0.5"
      role="radiogroup"
      aria-label={name}
    >
      {options.map((o) => (
        <button
          key={o.id}
          type="button"
          role="radio"
          aria-checked={value === o.id}
          data-testid={`share-${name}-${o.id}`}
          onClick={() => onChange(o.id)}
          className={cx(
            "rounded-[5px] px-2.5 text-[12px] font-medium transition-colors",
            value === o.id ? "bg-raised text-fg shadow-sm" : "text-muted hover:text-fg",
          )}
        >
          {o.label}
        </button>
      ))}
    </div>
  );
}

function Row({ label, hint, children }: { label: string; hint?: string; children: ReactNode }) {
  return (
    <div className="grid grid-cols-[128px_1fr] items-start gap-3 py-2">
      <div className="pt-1">
        <div className="text-[12.5px] font-medium text-fg">{label}</div>
        {hint && <div className="text-[11px] leading-4 text-faint">{hint}</div>}
      </div>
      <div className="min-w-0">{children}</div>
    </div>
  );
}

export interface ShareDialogProps {
  backendId: string;
  sessionId: string;
  title: string;
  messages: Message[];
  onClose(): void;
}

/** Create a share link: what will be visible, for how long, and what redaction removes. */
export function ShareDialog({ backendId, sessionId, title, messages, onClose }: ShareDialogProps) {
  const qc = useQueryClient();
  const titleId = useId();
  const panel = useRef<HTMLDivElement>(null);
  const [scope, setScope] = useState<"session" | "upto">("session");
  const [upTo, setUpTo] = useState<string | undefined>(messages.at(-1)?.id);
  const [live, setLive] = useState(true);
  const [includeToolOutput, setIncludeToolOutput] = useState(true);
  const [expiry, setExpiry] = useState<Expiry>("1d");
  const [creating, setCreating] = useState(false);
  const [error, setError] = useState<string>();
  const [created, setCreated] = useState<CreatedShare>();

  useFocusTrap(panel, { onEscape: onClose, initialFocus: panel });

  const upToMessageId = scope === "upto" ? upTo : undefined;
  const upToIndex = upToMessageId ? messages.findIndex((m) => m.id === upToMessageId) : -1;
  const previewBody: SharePreviewBody = {
    backendId,
    sessionId,
    includeToolOutput,
    ...(upToMessageId ? { upToMessageId } : {}),
  };
  const preview = useQuery({
    queryKey: ["share-preview", previewBody, messages.length],
    queryFn: () => apiSend<SharePreview>("POST", "/api/shares/preview", previewBody),
    placeholderData: (prev) => prev,
    staleTime: 10_000,
  });
  const existing = useQuery({
    queryKey: ["shares", backendId, sessionId],
    queryFn: () =>
      apiGet<{ items: ShareInfo[] }>(
        `/api/shares?state=active&backendId=${encodeURIComponent(backendId)}&sessionId=${encodeURIComponent(sessionId)}`,
      ),
  });
  const activeCount = existing.data?.items.length ?? 0;

  const expiresText = useMemo(() => {
    const e = EXPIRIES.find((x) => x.id === expiry)!;
    return e.ms === null
      ? "with no expiry (until you revoke it)"
      : `for ${e.label} (until about ${absoluteTime(Date.now() + e.ms)})`;
  }, [expiry]);

  const create = async () => {
    setCreating(true);
    setError(undefined);
    try {
      const body: CreateShareBody = {
        backendId,
        sessionId,
        live,
        includeToolOutput,
        expiresIn: expiry,
        ...(upToMessageId ? { upToMessageId } : {}),
      };
      const res = await apiSend<CreatedShare>("POST", "/api/shares", body);
      setCreated(res);
      void qc.invalidateQueries({ queryKey: ["shares"] });
    } catch (err) {
      setError(err instanceof Error ? err.message : "Could not create the link");
    } finally {
      setCreating(false);
    }
  };

  const url = created ? (typeof window !== "undefined" ? `${window.location.origin}${created.path}` : created.url) : "";
  const previewError = preview.error instanceof Error ? preview.error.message : undefined;

  return (
    <div
      className="fixed inset-0 z-50 grid place-items-center bg-black/55 p-4 phone:p-0"
      onMouseDown={(e) => e.target === e.currentTarget && onClose()}
    >
      <div
        ref={panel}
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        tabIndex={-1}
        data-testid="share-dialog"
        className="flex max-h-[calc(100dvh-2rem)] w-full max-w-[600px] flex-col overflow-hidden rounded-xl border border-border-strong bg-panel shadow-2xl outline-none phone:h-full phone:max-h-none phone:max-w-none phone:rounded-none phone:border-0 phone:pb-[env(safe-area-inset-bottom)] phone:pt-[env(safe-area-inset-top)]"
      >
        <div className="flex h-12 shrink-0 items-center gap-2 border-b border-border px-4">
          <IconLink size={15} className="text-muted" />
          <h2 id={titleId} className="shrink-0 whitespace-nowrap text-[14px] font-semibold">
            Share session
          </h2>
          <span className="min-w-0 truncate text-[12.5px] text-faint">{title}</span>
          <button
            type="button"
            onClick={onClose}
            className="ml-auto grid size-7 place-items-center rounded text-faint hover:bg-raised hover:text-fg phone:size-[40px]"
            aria-label="Close"
            data-testid="share-close"
          >
            <IconX size={14} />
          </button>
        </div>

        {created ? (
          <ShareResult created={created} url={url} onClose={onClose} />
        ) : (
          <>
            <div className="min-h-0 flex-1 overflow-y-auto px-4 py-2">
              <div className="divide-y divide-border">
                <Row label="What" hint="Which messages">
                  <div className="flex flex-col items-start gap-2">
                    <Segmented
                      name="scope"
                      value={scope}
                      onChange={setScope}
                      options={[
                        { id: "session", label: "Whole session" },
                        { id: "upto", label: "Up to a message" },
                      ]}
                    />
                    {scope === "upto" && (
                      <select
                        value={upTo}
                        onChange={(e) => setUpTo(e.target.value)}
                        data-testid="share-upto"
                        className="h-8 w-full rounded-md border border-border bg-sunken px-2 text-[12.5px] text-fg outline-none focus:border-accent"
                      >
                        {messages.map((m, i) => (
                          <option key={m.id} value={m.id}>
                            {messageLabel(m, i + 1)}
                          </option>
                        ))}
                      </select>
                    )}
                  </div>
                </Row>
                <Row label="Updates" hint="Live or frozen">
                  <Segmented
                    name="mode"
                    value={live ? "live" : "snapshot"}
                    onChange={(v) => setLive(v === "live")}
                    options={[
                      { id: "live", label: "Live" },
                      { id: "snapshot", label: "Snapshot" },
                    ]}
                  />
                </Row>
                <Row label="Tool outputs" hint="Outputs, files, diffs">
                  <label className="inline-flex h-7 cursor-pointer items-center gap-2 text-[12.5px] text-fg">
                    <input
                      type="checkbox"
                      checked={includeToolOutput}
                      onChange={(e) => setIncludeToolOutput(e.target.checked)}
                      data-testid="share-tool-output"
                      className="size-3.5 accent-[var(--sb-accent)]"
                    />
                    Include tool outputs
                  </label>
                </Row>
                <Row label="Expires">
                  <Segmented name="expiry" value={expiry} onChange={setExpiry} options={EXPIRIES} />
                </Row>
              </div>

              <p
                className="mb-3 mt-2 rounded-md border border-border bg-raised/50 px-3 py-2 text-[12.5px] leading-[19px] text-muted"
                data-testid="share-summary"
              >
                Anyone with the link can read{" "}
                <b className="font-medium text-fg">
                  {upToIndex >= 0 ? `the first ${upToIndex + 1} of ${messages.length} messages` : "the whole session"}
                </b>
                {live ? (
                  <>
                    ,{" "}
                    <b className="font-medium text-fg">
                      {upToIndex >= 0
                        ? "and that last message as it finishes"
                        : "including new messages as they arrive"}
                    </b>
                  </>
                ) : (
                  <>
                    {" "}
                    <b className="font-medium text-fg">as it is now</b> (a frozen snapshot)
                  </>
                )}
                ,{" "}
                <b className="font-medium text-fg">
                  {includeToolOutput ? "with tool outputs" : "without tool outputs"}
                </b>
                {includeToolOutput ? "" : " (tool calls stay, their results are hidden)"}, {expiresText}. It is
                read-only: nobody can prompt, answer or stop the agent through it.
                {preview.data?.hasOlder ? " Older messages the console has not loaded are not included." : ""}
              </p>

              <RedactionPreview preview={preview.data} loading={preview.isFetching} error={previewError} />
              {preview.data && !includeToolOutput && preview.data.hiddenToolOutputs > 0 && (
                <p className="mt-1.5 text-[11.5px] text-faint">
                  {preview.data.hiddenToolOutputs} tool output{preview.data.hiddenToolOutputs === 1 ? "" : "s"} left
                  out.
                </p>
              )}
            </div>
            <div className="flex h-14 shrink-0 items-center gap-2 border-t border-border px-4">
              {activeCount > 0 ? (
                <Link
                  href="/settings/shares"
                  className="text-[12px] text-faint hover:text-fg"
                  data-testid="share-existing"
                  onClick={onClose}
                >
                  {activeCount} active link{activeCount === 1 ? "" : "s"} for this session
                </Link>
              ) : (
                <span className="text-[12px] text-faint phone:hidden">
                  Served by this console; nothing is uploaded.
                </span>
              )}
              {error && (
                <span className="min-w-0 truncate text-[12px] text-err" role="alert">
                  {error}
                </span>
              )}
              <button
                type="button"
                onClick={onClose}
                className="ml-auto h-8 shrink-0 rounded-md px-3 text-[12.5px] text-muted hover:bg-raised hover:text-fg phone:h-[44px]"
              >
                Cancel
              </button>
              <button
                type="button"
                onClick={() => void create()}
                disabled={creating || (scope === "upto" && !upTo)}
                data-testid="share-create"
                className="inline-flex h-8 shrink-0 items-center gap-1.5 whitespace-nowrap rounded-md bg-accent px-3 text-[12.5px] font-medium text-accent-fg hover:opacity-90 disabled:opacity-50 phone:h-[44px] phone:px-4"
              >
                {creating ? <Spinner size={11} /> : <IconLink size={13} />}
                Create link
              </button>
            </div>
          </>
        )}
      </div>
    </div>
  );
}
