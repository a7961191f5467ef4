"use client";
import { useGlobalEvents } from "@/lib/hooks/use-global-events";
import { cx } from "../ui/cx";
import { isBusy, isWaiting } from "@/lib/timeline/selectors";
import { SidebarToggle } from "./shell";

/** The sessions home: what is connected and how to start. */
export function HomeView() {
  const live = useGlobalEvents();
  const waiting = Object.values(live.statuses).filter((s) => isWaiting(s.status)).length;
  const busy = Object.values(live.statuses).filter((s) => isBusy(s.status) && !isWaiting(s.status)).length;
  return (
    <div className="flex h-full flex-col" data-testid="home">
      <header className="flex h-14 shrink-0 items-center gap-2 border-b border-border bg-panel px-4 phone:px-2.5">
        <SidebarToggle />
        <h1 className="text-[14px] font-semibold">Sessions</h1>
        <span className="ml-1 truncate text-[12px] text-faint">
          {busy} working · {waiting} waiting for you
        </span>
      </header>
      <div className="mx-auto w-full max-w-[720px] p-8 phone:px-4 phone:py-6">
        <h2 className="text-[18px] font-semibold tracking-tight">Pick a session, or start one</h2>
        <p className="mt-1 text-[13px] text-muted">
          Open a session in the sidebar to watch it live, or press{" "}
          <kbd className="rounded border border-border px-1 text-[11px]">Alt</kbd>+
          <kbd className="rounded border border-border px-1 text-[11px]">N</kbd> for a new one.{" "}
          <kbd className="rounded border border-border px-1 text-[11px]">Ctrl</kbd>+
          <kbd className="rounded border border-border px-1 text-[11px]">K</kbd> finds any session or action,{" "}
          <kbd className="rounded border border-border px-1 text-[11px]">?</kbd> lists the shortcuts.
        </p>
        <h2 className="mt-8 text-[11px] font-semibold uppercase tracking-wide text-faint">Backends</h2>
        <ul className="mt-2 divide-y divide-border rounded-lg border border-border bg-panel">
          {live.backends.map((b) => (
            <li
              key={b.id}
              className="flex items-center gap-3 px-4 py-3"
              data-testid="backend-card"
              data-status={b.status}
            >
              <span
                className={cx(
                  "size-2 rounded-full",
                  b.status === "ready" ? "bg-ok" : b.status === "connecting" ? "bg-warn animate-pulse" : "bg-err",
                )}
              />
              <div className="min-w-0 flex-1">
                <div className="text-[13px] font-medium">
                  {b.label}{" "}
                  <span className="font-normal text-faint">
                    · {b.kind}
                    {b.embedded ? " · embedded" : ""}
                    {b.version ? ` · v${b.version}` : ""}
                  </span>
                </div>
                <div className="truncate text-[12px] text-muted">{b.error ?? b.location ?? ""}</div>
              </div>
              <span className="text-[12px] capitalize text-muted">{b.status}</span>
            </li>
          ))}
          {live.backends.length === 0 && <li className="px-4 py-3 text-[13px] text-faint">Connecting…</li>}
        </ul>
      </div>
    </div>
  );
}
