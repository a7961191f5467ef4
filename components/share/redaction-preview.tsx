"use client";
/** What redaction removes from a share: the secrets found, by kind, with excerpts. */
import Link from "next/link";
import type { SharePreview } from "@/lib/api";
import { Badge } from "@/components/ui/badge";
import { IconShield } from "@/components/ui/icons";
import { Spinner } from "@/components/ui/spinner";

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

export function RedactionPreview({
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
