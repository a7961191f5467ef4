"use client";
import { useQuery } from "@tanstack/react-query";
import dynamic from "next/dynamic";
import { useMemo } from "react";
import type { Backend } from "@/lib/model";
import { apiGet } from "@/lib/client/api-client";
import { useGlobalEvents } from "@/lib/hooks/use-global-events";
import { useRoleReason } from "@/lib/hooks/use-me";
import { SidebarToggle } from "../shell/shell";
import { AddA2aBackend } from "./add-a2a-backend";
import { AddCommandBackend } from "./add-command-backend";
import { BackendCard } from "./backend-card";
import { AuditSection } from "./audit-section";
import { SearchSettings } from "./search-settings";

// Push code (service worker, subscription) loads only when Settings shows it.
const PushSettings = dynamic(() => import("./push-settings"), { ssr: false });

/** `/settings`: the configured backends (live status, stderr tail, remove) adding an ACP agent and an A2A agent. */
export function SettingsView() {
  const live = useGlobalEvents();
  const q = useQuery({
    queryKey: ["backends"],
    queryFn: () => apiGet<{ items: Backend[] }>("/api/backends"),
    refetchInterval: 5000,
  });
  // The list carries where each backend came from; the event stream carries its live state.
  const backends = useMemo(() => {
    const listed = q.data?.items ?? [];
    const byId = new Map(live.backends.map((b) => [b.id, b]));
    const merged = listed.map((b) => ({ ...b, ...byId.get(b.id), ...(b.source ? { source: b.source } : {}) }));
    for (const b of live.backends) if (!listed.some((x) => x.id === b.id) && q.isFetched) merged.push(b);
    return merged;
  }, [q.data, q.isFetched, live.backends]);
  // Changing the console's settings and backends is an admin's (docs/people.md): the forms are
  // disabled for the other roles, with the reason on hover.
  const adminReason = useRoleReason("admin");

  return (
    <div className="flex h-full min-h-0 flex-col" data-testid="settings">
      <header className="flex h-14 shrink-0 items-center gap-2 border-b border-border bg-panel px-4 phone:px-2.5">
        <SidebarToggle />
        <h1 className="text-[14px] font-semibold">Settings</h1>
      </header>
      <div className="min-h-0 flex-1 overflow-y-auto">
        <div className="mx-auto w-full max-w-[860px] px-6 py-6 phone:px-3 phone:py-4">
          <h2 className="text-[11px] font-semibold uppercase tracking-wide text-faint">Backends</h2>
          <ul
            className="mt-2 divide-y divide-border rounded-lg border border-border bg-panel"
            data-testid="backend-list"
          >
            {backends.map((b) => (
              <BackendCard key={b.id} backend={b} />
            ))}
            {backends.length === 0 && (
              <li className="px-4 py-3 text-[13px] text-faint">
                {q.isLoading ? "Loading…" : "No backends configured."}
              </li>
            )}
          </ul>
          <h2 className="mt-8 text-[11px] font-semibold uppercase tracking-wide text-faint">Search</h2>
          <p className="mb-2 mt-1 text-[12.5px] text-muted">
            Every session&apos;s messages, of every backend, in the console&apos;s own index: fed live from open
            sessions, and read in the background from each backend&apos;s history. See docs/search.md.
          </p>
          <fieldset disabled={Boolean(adminReason)} title={adminReason} data-testid="search-settings-fieldset">
            <SearchSettings />
          </fieldset>
          <h2 className="mt-8 text-[11px] font-semibold uppercase tracking-wide text-faint">Push notifications</h2>
          <p className="mb-2 mt-1 text-[12.5px] text-muted">
            An agent that asks for permission or a question reaches your devices, even with every tab closed, and a
            permission can be answered from the notification. See docs/push.md.
          </p>
          <PushSettings />
          <h2 className="mt-8 text-[11px] font-semibold uppercase tracking-wide text-faint">Add an ACP agent</h2>
          <p className="mb-2 mt-1 text-[12.5px] text-muted">
            Any agent that speaks the Agent Client Protocol over stdio: GitHub Copilot CLI, OpenCode, and the Claude,
            Codex and Gemini adapters. See docs/backends/acp.md.
          </p>
          <fieldset disabled={Boolean(adminReason)} title={adminReason} data-testid="add-acp-fieldset">
            <AddCommandBackend />
          </fieldset>
          <h2 className="mt-8 text-[11px] font-semibold uppercase tracking-wide text-faint">Add an A2A agent</h2>
          <p className="mb-2 mt-1 text-[12.5px] text-muted">
            Any A2A 0.3 agent over JSON-RPC, with opencode-a2a&apos;s sessions, models and interrupts when its card
            offers them. See docs/backends/a2a.md.
          </p>
          <fieldset disabled={Boolean(adminReason)} title={adminReason} data-testid="add-a2a-fieldset">
            <AddA2aBackend />
          </fieldset>
          {!adminReason && <AuditSection />}
        </div>
      </div>
    </div>
  );
}
