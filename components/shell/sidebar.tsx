"use client";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useParams, usePathname } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import type { Backend } from "@/lib/model";
import { apiGet, apiSend } from "@/lib/client/api-client";
import { sessionKey } from "@/lib/client/global-store";
import { useGlobalEvents } from "@/lib/hooks/use-global-events";
import { useMe } from "@/lib/hooks/use-me";
import { useTheme } from "@/lib/hooks/use-theme";
import { cx } from "../ui/cx";
import { BackendSessions } from "./backend-sessions";
import { useDebounced } from "@/lib/hooks/use-debounced";
import { useNotifications, type NotificationState } from "@/lib/hooks/use-notifications";
import { IconBell, IconBellOff, IconColumns, IconLink, IconLogOut, IconMoon, IconSearch, IconSun } from "../ui/icons";
import { isTyping } from "./commands";
import { Inbox } from "./inbox";
import { useShell } from "./shell";
import { IconGear } from "../settings/icon-gear";

async function logOut() {
  let next = "/login";
  try {
    // Someone signed in with OIDC also leaves the identity provider's session when it offers that.
    const r = await apiSend<{ ok: boolean; endSessionUrl?: string }>("POST", "/api/auth/logout");
    if (r?.endSessionUrl && /^https?:\/\//.test(r.endSessionUrl)) next = r.endSessionUrl;
  } finally {
    window.location.assign(next);
  }
}

/** Who is signed in, and with which role (docs/people.md). */
function SignedIn() {
  const me = useMe();
  if (!me) return null;
  const label = me.via === "token" ? "Console token" : me.user.name || me.user.email || me.user.id;
  return (
    <div
      className="flex items-center gap-2 border-t border-border px-3 py-2 text-[12px] text-muted"
      data-testid="signed-in"
      title={me.via === "oidc" && me.user.email ? me.user.email : undefined}
    >
      <span className="min-w-0 flex-1 truncate" data-testid="signed-in-name">
        {label}
      </span>
      <span className="rounded border border-border px-1.5 text-[11px] text-faint" data-testid="signed-in-role">
        {me.role}
      </span>
    </div>
  );
}

export function Sidebar() {
  const live = useGlobalEvents();
  const params = useParams<{ backendId?: string; sessionId?: string }>();
  const [theme, toggleTheme] = useTheme();
  const pathname = usePathname();
  const [search, setSearch] = useState("");
  const debounced = useDebounced(search.trim(), 250);
  const searchRef = useRef<HTMLInputElement>(null);
  const shell = useShell();
  const fallback = useQuery({
    queryKey: ["backends"],
    queryFn: () => apiGet<{ items: Backend[] }>("/api/backends"),
    refetchInterval: live.connection === "connected" ? false : 5000,
  });
  const backends = live.backends.length ? live.backends : (fallback.data?.items ?? []);
  const activeKey =
    params.backendId && params.sessionId
      ? sessionKey(decodeURIComponent(params.backendId), decodeURIComponent(params.sessionId))
      : undefined;

  // `/` jumps to the search (Ctrl/Cmd+K opens the command palette: components/shell/command-palette.tsx).
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "/" && !e.ctrlKey && !e.metaKey && !e.altKey && !isTyping(e.target) && !e.defaultPrevented) {
        const input = searchRef.current;
        // Hidden (a closed drawer on a phone): open the drawer first.
        if (!input || input.offsetParent === null) {
          if (!shell.phone) return;
          e.preventDefault();
          shell.toggleSidebar();
          setTimeout(() => searchRef.current?.focus(), 0);
          return;
        }
        e.preventDefault();
        input.focus();
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [shell]);

  return (
    <aside
      className="flex h-full w-[272px] shrink-0 flex-col border-r border-border bg-panel phone:w-[min(86vw,320px)]"
      data-testid="sidebar"
      aria-label="Sessions"
    >
      <div className="flex h-14 items-center gap-2 border-b border-border px-3">
        <Link href="/" className="flex items-center gap-2 font-semibold tracking-tight text-fg">
          <span className="grid size-5 place-items-center rounded bg-accent text-[11px] font-bold text-accent-fg">
            S
          </span>
          Switchboard
        </Link>
        <span
          className={cx(
            "ml-1 size-1.5 rounded-full",
            live.connection === "connected" ? "bg-ok" : "bg-warn animate-pulse",
          )}
          title={live.connection === "connected" ? "Live" : "Reconnecting…"}
        />
        <Link
          href="/settings"
          className="ml-auto grid size-7 place-items-center rounded text-muted hover:bg-raised hover:text-fg phone:size-[36px]"
          title="Settings"
          aria-label="Settings"
          data-testid="settings-link"
        >
          <IconGear size={15} />
        </Link>
        <NotifyToggle />
        <button
          type="button"
          onClick={() => toggleTheme()}
          className="grid size-7 place-items-center rounded text-muted hover:bg-raised hover:text-fg phone:size-[36px]"
          title={theme === "dark" ? "Light theme" : "Dark theme"}
          aria-label="Toggle theme"
          data-testid="theme-toggle"
        >
          {theme === "dark" ? <IconSun className="size-4" /> : <IconMoon className="size-4" />}
        </button>
        <button
          type="button"
          onClick={() => void logOut()}
          className="grid size-7 place-items-center rounded text-muted hover:bg-raised hover:text-fg phone:size-[36px]"
          title="Log out"
          aria-label="Log out"
          data-testid="logout"
        >
          <IconLogOut className="size-4" />
        </button>
      </div>
      <div className="p-2">
        <label className="flex h-8 items-center gap-2 rounded-md border border-border bg-sunken px-2 text-muted focus-within:border-accent phone:h-[40px]">
          <IconSearch className="size-3.5 shrink-0" />
          <input
            ref={searchRef}
            value={search}
            onChange={(e) => setSearch(e.target.value)}
            onKeyDown={(e) => e.key === "Escape" && setSearch("")}
            placeholder="Search sessions"
            aria-label="Search sessions"
            data-testid="session-search"
            className="min-w-0 flex-1 bg-transparent text-[13px] text-fg outline-none placeholder:text-faint phone:text-[16px]"
          />
          <kbd className="rounded border border-border px-1 text-[10px] text-faint phone:hidden">/</kbd>
        </label>
      </div>
      <Inbox />
      <nav className="min-h-0 flex-1 overflow-y-auto pb-4">
        {backends.map((b) => (
          <BackendSessions key={b.id} backend={b} search={debounced} activeKey={activeKey} />
        ))}
        {backends.length === 0 && <p className="px-3 text-xs text-faint">Loading backends…</p>}
      </nav>
      <div className="flex gap-1 border-t border-border p-1.5">
        <FootLink
          href="/search"
          testId="search-link"
          pathname={pathname}
          title="Search every session's messages (Ctrl+Shift+F)"
        >
          <IconSearch className="size-3.5" /> Search
        </FootLink>
        <FootLink
          href="/compare"
          testId="nav-compare"
          pathname={pathname}
          title="Run one task on several agents and compare"
        >
          <IconColumns className="size-3.5" /> Compare
        </FootLink>
        <FootLink href="/settings/shares" testId="nav-shares" pathname={pathname}>
          <IconLink className="size-3.5" /> Shares
        </FootLink>
      </div>
      <SignedIn />
    </aside>
  );
}

const NOTIFY_TITLE: Record<Exclude<NotificationState, "unsupported">, string> = {
  default: "Notify me when an agent needs me while this tab is hidden",
  on: "Notifications on: you are notified when an agent needs you while this tab is hidden. Click to mute",
  muted: "Notifications muted. Click to turn them on",
  denied: "Notifications are blocked for this site in the browser's settings",
};

const NOTIFY_PUSH_TITLE = "Notify me when an agent needs me, on this device even with the tab closed";

/** Whether this browser can take Web Push (docs/push.md); the push code itself loads on demand. */
const canPush = () => typeof window !== "undefined" && window.isSecureContext && "PushManager" in window;

/**
 * The bell: asks for the browser's permission, then mutes and unmutes the console's notifications.
 * Where the browser takes Web Push, granting it also subscribes this device (docs/push.md), so an
 * agent that asks reaches it with every tab closed; elsewhere it is the in-tab notifications alone.
 */
function NotifyToggle() {
  const { state, toggle: toggleInTab } = useNotifications();
  const toggle = () =>
    toggleInTab(() => {
      if (!canPush()) return;
      void import("@/lib/push/client").then((p) => p.subscribeThisDevice()).catch(() => undefined);
    });
  // The server renders "unsupported" (no Notification there): keep the button's slot, so the header's
  // icons do not move when the page hydrates (a click aimed at Settings would land on the bell).
  if (state === "unsupported")
    return <span className="size-7 shrink-0 phone:size-[36px]" aria-hidden="true" data-testid="notify-slot" />;
  return (
    <button
      type="button"
      onClick={toggle}
      disabled={state === "denied"}
      className={cx(
        "grid size-7 place-items-center rounded hover:bg-raised disabled:cursor-not-allowed phone:size-[36px] disabled:hover:bg-transparent",
        state === "on" ? "text-accent hover:text-fg" : "text-muted hover:text-fg disabled:text-faint",
      )}
      title={state === "default" && canPush() ? NOTIFY_PUSH_TITLE : NOTIFY_TITLE[state]}
      aria-label={state === "default" && canPush() ? NOTIFY_PUSH_TITLE : NOTIFY_TITLE[state]}
      aria-pressed={state === "on" || state === "muted" ? state === "on" : undefined}
      data-testid="notify-toggle"
      data-state={state}
    >
      {state === "on" || state === "default" ? <IconBell className="size-4" /> : <IconBellOff className="size-4" />}
    </button>
  );
}

/** A link at the sidebar's foot, marked as the current page when it is. */
function FootLink({
  href,
  testId,
  pathname,
  title,
  children,
}: {
  href: string;
  testId: string;
  pathname: string | null;
  title?: string;
  children: React.ReactNode;
}) {
  const current = pathname === href;
  return (
    <Link
      href={href}
      data-testid={testId}
      title={title}
      aria-current={current ? "page" : undefined}
      className={cx(
        "flex h-8 flex-1 items-center gap-2 rounded-md px-2 text-[12.5px] phone:h-[40px]",
        current ? "bg-raised text-fg" : "text-muted hover:bg-raised/60 hover:text-fg",
      )}
    >
      {children}
    </Link>
  );
}
