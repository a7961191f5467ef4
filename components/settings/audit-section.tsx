"use client";
/** The audit log on the settings page (admins), loaded when asked for: its code is not part of the page until then. */
import { lazy, Suspense, useState } from "react";

const AuditLog = lazy(() => import("./audit-log").then((m) => ({ default: m.AuditLog })));

export function AuditSection() {
  const [open, setOpen] = useState(false);
  return (
    <section className="mt-8" data-testid="audit-section">
      <h2 className="text-[11px] font-semibold uppercase tracking-wide text-faint">Audit log</h2>
      <p className="mb-2 mt-1 text-[12.5px] text-muted">
        Who signed in, prompted, answered, forked, reverted, shared and changed the console, newest first. Nobody can
        edit it. See docs/people.md.
      </p>
      {open ? (
        <Suspense fallback={<p className="text-[12.5px] text-faint">Loading…</p>}>
          <AuditLog />
        </Suspense>
      ) : (
        <button
          type="button"
          onClick={() => setOpen(true)}
          className="h-8 rounded-md border border-border px-3 text-[12.5px] text-fg hover:bg-raised"
          data-testid="audit-open"
        >
          Show the audit log
        </button>
      )}
    </section>
  );
}
