"use client";
import { useEffect, useRef, useState } from "react";
import type { SharedSnapshot, ShareEndReason } from "@/lib/api";
import type { ConnectionState } from "@/lib/client/sse-client";
import { useShareStream } from "@/lib/hooks/use-share-stream";
import { useTheme } from "@/lib/hooks/use-theme";
import { MessageView } from "@/components/timeline/message-view";
import { Badge } from "@/components/ui/badge";
import { cx } from "@/components/ui/cx";
import { IconBan, IconClock, IconEye, IconMoon, IconShield, IconSun } from "@/components/ui/icons";
import { PulseDots } from "@/components/ui/spinner";
import { absoluteTime, expiryText } from "./share-format";
import { useMarkerHighlight } from "./use-marker-highlight";
import { isBusy } from "@/lib/timeline/selectors";

const GONE: Record<ShareEndReason, { title: string; text: string }> = {
  revoked: { title: "This share was revoked", text: "The person who shared this session has turned the link off." },
  expired: { title: "This share link has expired", text: "Ask the person who shared it for a new link." },
  unavailable: {
    title: "This shared session is no longer available",
    text: "The session was deleted or its backend was removed.",
  },
};

function Gone({ reason }: { reason: ShareEndReason }) {
  const g = GONE[reason];
  return (
    <div className="grid flex-1 place-items-center px-6 py-24" data-testid="share-gone" data-reason={reason}>
      <div className="max-w-sm text-center">
        <div className="mx-auto grid size-10 place-items-center rounded-full border border-border bg-panel text-faint">
          {reason === "expired" ? <IconClock size={18} /> : <IconBan size={18} />}
        </div>
        <h2 className="mt-3 text-[15px] font-semibold text-fg">{g.title}</h2>
        <p className="mt-1 text-[13px] text-muted">{g.text}</p>
      </div>
    </div>
  );
}

function LiveChip({ live, connection, ended }: { live: boolean; connection: ConnectionState; ended: boolean }) {
  if (ended) return null;
  if (!live) {
    return (
      <span
        className="inline-flex h-6 items-center gap-1.5 rounded-full border border-border px-2 text-[11px] font-medium text-muted"
        data-testid="share-connection"
        data-state="snapshot"
      >
        Snapshot
      </span>
    );
  }
  const ok = connection === "connected";
  return (
    <span
      className={cx(
        "inline-flex h-6 items-center gap-1.5 rounded-full border px-2 text-[11px] font-medium",
        ok ? "border-border text-muted" : "border-warn/40 bg-warn/10 text-warn",
      )}
      data-testid="share-connection"
      data-state={ok ? "connected" : "reconnecting"}
    >
      <span className={cx("size-1.5 rounded-full", ok ? "bg-ok" : "animate-pulse bg-warn")} />
      {ok ? "Live" : "Reconnecting…"}
    </span>
  );
}

/** A session shared read-only: no composer, no interrupt buttons, no actions. */
export function SharedSessionView({ token, initial }: { token: string; initial: SharedSnapshot }) {
  const view = useShareStream(token, initial);
  const [theme, toggleTheme] = useTheme();
  const { session, messages } = view.state;
  const share = view.share;
  const busy = isBusy(session?.status);
  let lastAssistant = -1;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]!.role === "assistant") {
      lastAssistant = i;
      break;
    }
  }

  const timeline = useRef<HTMLElement>(null);
  const [openTick, setOpenTick] = useState(0);
  useMarkerHighlight(timeline, [messages, openTick]);

  // Follow a live reply while the reader is at the bottom of the page.
  const atBottom = useRef(false);
  useEffect(() => {
    const onScroll = () => {
      atBottom.current = window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 120;
    };
    onScroll();
    window.addEventListener("scroll", onScroll, { passive: true });
    return () => window.removeEventListener("scroll", onScroll);
  }, []);
  // biome-ignore lint/correctness/useExhaustiveDependencies: follows the newest message as messages arrive
  useEffect(() => {
    if (atBottom.current && !view.ended) window.scrollTo({ top: document.documentElement.scrollHeight });
  }, [messages, view.ended]);

  // Relative times differ between server and browser: render them after hydration.
  const [now, setNow] = useState<number | undefined>(undefined);
  useEffect(() => {
    setNow(Date.now());
    const t = setInterval(() => setNow(Date.now()), 30_000);
    return () => clearInterval(t);
  }, []);

  return (
    <div
      className="flex min-h-dvh flex-col"
      data-testid="share-view"
      data-live={share.live}
      data-ended={view.ended ?? ""}
    >
      <header className="sticky top-0 z-10 border-b border-border bg-panel/95 backdrop-blur" data-testid="share-banner">
        <div className="mx-auto flex h-14 max-w-[912px] items-center gap-3 px-4">
          <span
            className="grid size-6 shrink-0 place-items-center rounded bg-accent text-[12px] font-bold text-accent-fg"
            title="Switchboard"
          >
            S
          </span>
          <div className="min-w-0 flex-1">
            <h1 className="truncate text-[14px] font-semibold" data-testid="share-title">
              {view.ended ? "Shared session" : session?.title || "Shared session"}
            </h1>
            <div
              className="mt-0.5 flex min-w-0 items-center gap-1.5 overflow-hidden whitespace-nowrap text-[11px] text-faint"
              data-testid="share-scope"
            >
              <span className="inline-flex items-center gap-1">
                <IconEye size={12} /> Read-only
              </span>
              <span className="text-border-strong">·</span>
              <span>{share.upToMessageId ? "Up to a chosen message" : "Whole session"}</span>
              <span className="text-border-strong">·</span>
              <span>{share.live ? "Live updates" : `Snapshot of ${now ? absoluteTime(share.createdAt) : "…"}`}</span>
              {!share.includeToolOutput && (
                <>
                  <span className="text-border-strong">·</span>
                  <span>Tool outputs hidden</span>
                </>
              )}
              <span className="text-border-strong">·</span>
              <span
                data-testid="share-expiry"
                title={share.expiresAt ? `Until ${now ? absoluteTime(share.expiresAt) : ""}` : undefined}
              >
                {now ? expiryText(share.expiresAt, now) : share.expiresAt === null ? "Never expires" : "\u00a0"}
              </span>
            </div>
          </div>
          <Badge
            tone="neutral"
            className="hidden sm:inline-flex"
            title="Secrets such as API keys, tokens and private keys are replaced with [REDACTED:…] markers by the server."
          >
            <IconShield size={11} /> Secrets redacted
          </Badge>
          <LiveChip live={share.live} connection={view.connection} ended={Boolean(view.ended)} />
          <button
            type="button"
            onClick={() => toggleTheme()}
            className="grid size-7 shrink-0 place-items-center rounded text-muted hover:bg-raised hover:text-fg"
            title={theme === "dark" ? "Light theme" : "Dark theme"}
            aria-label="Toggle theme"
          >
            {theme === "dark" ? <IconSun className="size-4" /> : <IconMoon className="size-4" />}
          </button>
        </div>
      </header>

      {view.ended ? (
        <Gone reason={view.ended} />
      ) : (
        <main
          ref={timeline}
          className="mx-auto w-full max-w-[912px] flex-1 px-4"
          data-testid="timeline"
          // Tool cards and reasoning unfold on click: highlight the markers they reveal.
          onClickCapture={() => setTimeout(() => setOpenTick((t) => t + 1), 0)}
        >
          <div className="flex flex-col gap-4 pb-6 pt-5">
            {view.hasOlder && (
              <p className="text-center text-[12px] text-faint">Earlier messages are not part of this share.</p>
            )}
            {messages.length === 0 && (
              <p className="py-16 text-center text-[13px] text-faint" data-testid="empty-session">
                Nothing has been said in this session yet.
              </p>
            )}
            {messages.map((m, i) => (
              <div key={m.id} className="[contain-intrinsic-size:auto_120px] [content-visibility:auto]">
                <MessageView message={m} streaming={busy && i === lastAssistant} />
              </div>
            ))}
            <div className="flex h-6 items-center gap-2 text-[12px] text-muted" data-testid="activity">
              {busy && (
                <>
                  <PulseDots className="text-accent" /> Working…
                </>
              )}
            </div>
          </div>
        </main>
      )}

      <footer className="border-t border-border py-3 text-center text-[11.5px] text-faint">
        Shared read-only from Switchboard. Secrets are replaced with{" "}
        <code className="font-mono text-muted">[REDACTED:…]</code> markers.
      </footer>
    </div>
  );
}
