"use client";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useId, useMemo, useRef, useState, type ReactNode } from "react";
import type { CreateShareBody, CreatedShare, ShareInfo, SharePreview, SharePreviewBody } from "@/lib/api";
import type { Message } from "@/lib/model";
import { apiGet, apiSend } from "@/lib/client/api-client";
import { Badge } from "@/components/ui/badge";
import { CopyButton } from "@/components/ui/copy-button";
import { cx } from "@/components/ui/cx";
import { IconExternal, IconLink, IconShield, IconX } from "@/components/ui/icons";
import { Spinner } from "@/components/ui/spinner";
import { useFocusTrap } from "@/components/ui/use-focus-trap";
import { absoluteTime } from "./share-format";

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

/** A redacted excerpt: text with its `[REDACTED:…]` markers highlighted (as text, never HTML). */
export function MarkedExcerpt({ text }: { text: string }) {
  const parts = text.split(/(\[REDACTED:[a-z0-9-]+\])/g);
  return (
    <>
      {parts.map((p, i) =>
        i % 2 === 1 ? (
          <span key={i} className="rounded-[3px] bg-warn/15 px-0.5 text-warn">
            {p}
          </span>
        ) : (
          <span key={i}>{p}</span>
        ),
      )}
    </>
  );
}

function RedactionPreview({
  preview,
  loading,
  error,
}: {
  preview: SharePreview | undefined;
  loading: boolean;
  error: string | undefined;
}) {
  const r = preview?.redactions;
  return (
    <section
      className="rounded-lg border border-border bg-sunken/60"
      data-testid="redaction-preview"
      data-total={r?.total ?? ""}
    >
      <div className="border-b border-border px-3 py-2">
        <div className="flex h-5 items-center gap-2 whitespace-nowrap text-[12.5px]">
          <IconShield size={14} className={r && r.total > 0 ? "text-warn" : "text-ok"} />
          <span className="font-medium text-fg" data-testid="redaction-count">
            {error
              ? "Cannot preview"
              : !r
                ? "Checking for secrets…"
                : r.total === 0
                  ? "No secrets found"
                  : `${r.total} secret${r.total === 1 ? "" : "s"} will be redacted`}
          </span>
          {r && r.occurrences > r.total && <span className="text-[11.5px] text-faint">in {r.occurrences} places</span>}
          {loading && <Spinner size={11} className="text-faint" />}
        </div>
        {r && r.total > 0 && (
          <div className="mt-1.5 flex flex-wrap gap-1">
            {Object.entries(r.byKind)
              .sort((a, b) => b[1] - a[1])
              .map(([k, n]) => (
                <Badge key={k} mono tone="warn">
                  {k}
                  {n > 1 ? ` ×${n}` : ""}
                </Badge>
              ))}
          </div>
        )}
      </div>
      {error ? (
        <p className="px-3 py-2 text-[12px] text-err">{error}</p>
      ) : r && r.examples.length > 0 ? (
        <ul className="max-h-40 overflow-y-auto px-3 py-1.5">
          {r.examples.map((e, i) => (
            <li key={i} className="flex items-baseline gap-2 py-0.5" data-testid="redaction-example">
              <span className="w-[92px] shrink-0 truncate text-[11px] text-faint">{e.where}</span>
              <code className="min-w-0 truncate font-mono text-[11.5px] text-muted" title={e.excerpt}>
                <MarkedExcerpt text={e.excerpt} />
              </code>
            </li>
          ))}
        </ul>
      ) : (
        <p className="px-3 py-2 text-[11.5px] text-faint">
          {r
            ? "Nothing matched the redaction rules. Read the session before you share it: rules cannot catch everything."
            : "\u00a0"}
        </p>
      )}
      <p className="border-t border-border px-3 py-1.5 text-[11px] text-faint">
        Secrets are replaced on the server with a visible marker, like{" "}
        <code className="font-mono text-muted">[REDACTED:openai-key]</code>.{" "}
        <Link href="/settings/shares" className="text-muted underline underline-offset-2 hover:text-fg">
          Add your own patterns
        </Link>
      </p>
    </section>
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
          <div className="flex flex-col gap-3 p-4" data-testid="share-result">
            <p className="text-[13px] text-fg">Anyone with this link can read the session, read-only.</p>
            <div className="flex items-center gap-1.5 rounded-md border border-border-strong bg-sunken pl-2.5 pr-1">
              <input
                readOnly
                value={url}
                data-testid="share-url"
                onFocus={(e) => e.currentTarget.select()}
                className="h-8 min-w-0 flex-1 bg-transparent font-mono text-[12px] text-fg outline-none"
              />
              <CopyButton text={url} label="Copy link" className="size-7" />
              <a
                href={url}
                target="_blank"
                rel="noopener noreferrer"
                className="grid size-7 place-items-center rounded text-faint hover:bg-raised hover:text-fg"
                title="Open"
                aria-label="Open the shared page"
              >
                <IconExternal size={13} />
              </a>
            </div>
            <p className="text-[11.5px] leading-[17px] text-faint">
              Copy it now: the link is shown only once (only a hash of it is kept).{" "}
              {created.expiresAt ? `It expires ${absoluteTime(created.expiresAt)}.` : "It never expires."} Revoke it any
              time in{" "}
              <Link
                href="/settings/shares"
                className="text-muted underline underline-offset-2 hover:text-fg"
                onClick={onClose}
              >
                Settings → Shares
              </Link>
              .
            </p>
            <div className="flex justify-end">
              <button
                type="button"
                onClick={onClose}
                className="h-8 rounded-md bg-accent px-3 text-[12.5px] font-medium text-accent-fg hover:opacity-90"
                data-testid="share-done"
              >
                Done
              </button>
            </div>
          </div>
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

/** The header's Share button; opens the dialog. */
export function ShareButton({
  backendId,
  sessionId,
  title,
  messages,
  disabled,
  open: openProp,
  onOpenChange,
  className,
}: Omit<ShareDialogProps, "onClose"> & {
  disabled?: boolean;
  open?: boolean;
  onOpenChange?(open: boolean): void;
  className?: string;
}) {
  const [inner, setInner] = useState(false);
  const open = openProp ?? inner;
  const set = (v: boolean) => {
    if (openProp === undefined) setInner(v);
    onOpenChange?.(v);
  };
  return (
    <>
      <button
        type="button"
        onClick={() => set(true)}
        disabled={disabled}
        data-testid="share-button"
        title="Share a read-only link to this session"
        className={cx(
          "inline-flex h-7 items-center gap-1.5 rounded-md border border-border px-2.5 text-[12px] font-medium text-muted hover:bg-raised hover:text-fg disabled:opacity-40",
          className,
        )}
      >
        <IconLink size={13} /> Share
      </button>
      {open && (
        <ShareDialog
          backendId={backendId}
          sessionId={sessionId}
          title={title}
          messages={messages}
          onClose={() => set(false)}
        />
      )}
    </>
  );
}
