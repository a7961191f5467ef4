"use client";
import { useParams } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import { sessionKey } from "@/lib/client/global-store";
import { useGlobalEvents } from "@/lib/hooks/use-global-events";
import { phaseAnnouncement, phaseOf, type Phase } from "@/lib/status-announcement";

/**
 * One polite live region for the console: the open session's phase changes (working, waiting for
 * you, done, failed) are read once each, and a new interrupt in another session is named. Streamed
 * text never reaches it: it follows statuses (GET /api/events), not the timeline.
 */
export function StatusAnnouncer() {
  const live = useGlobalEvents();
  const params = useParams<{ backendId?: string; sessionId?: string }>();
  const key =
    params.backendId && params.sessionId
      ? sessionKey(decodeURIComponent(params.backendId), decodeURIComponent(params.sessionId))
      : undefined;
  const [message, setMessage] = useState("");
  const last = useRef<{ key: string | undefined; phase: Phase | undefined }>({ key: undefined, phase: undefined });
  const seen = useRef<Set<string> | null>(null);

  const mine = key
    ? live.interrupts.filter((i) => sessionKey(i.backendId, i.ownerSessionId ?? i.sessionId) === key)
    : [];
  const st = key ? live.statuses[key] : undefined;
  const phase = phaseOf(st?.status, mine.length > 0);
  const detail = phase === "waiting" ? mine[0]?.title : phase === "failed" ? st?.detail : undefined;

  useEffect(() => {
    if (last.current.key !== key) {
      // A newly opened session: remember where it stands without announcing it.
      last.current = { key, phase: key ? phase : undefined };
      return;
    }
    const text = phaseAnnouncement(last.current.phase, phase, detail);
    last.current.phase = phase;
    if (text) setMessage(text);
  }, [key, phase, detail]);

  // Interrupts elsewhere: each new one once (the ones present at load are not news).
  useEffect(() => {
    if (live.connection !== "connected") return;
    const ids = new Set(live.interrupts.map((i) => i.id));
    if (seen.current === null) {
      seen.current = ids;
      return;
    }
    const fresh = live.interrupts.filter(
      (i) => !seen.current!.has(i.id) && sessionKey(i.backendId, i.ownerSessionId ?? i.sessionId) !== key,
    );
    seen.current = ids;
    if (fresh[0]) setMessage(`Another session needs you: ${fresh[0].title}`);
  }, [live.interrupts, live.connection, key]);

  return (
    <div role="status" aria-live="polite" aria-atomic="true" className="sr-only" data-testid="status-announcer">
      {message}
    </div>
  );
}
