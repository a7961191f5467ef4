"use client";
import { useCallback, useEffect } from "react";
import type { PromptBody } from "@/lib/api";
import { apiSend, sessionPath } from "@/lib/client/api-client";
import { setBaseTitle } from "@/lib/client/page-title";
import { useGlobalEvents } from "@/lib/hooks/use-global-events";
import { useSessionStream } from "@/lib/hooks/use-session-stream";
import { Composer } from "./composer";
import { linkState, SessionHeader } from "./session-header";
import { Timeline } from "./timeline";

export function SessionView({ backendId, sessionId }: { backendId: string; sessionId: string }) {
  const { view, store } = useSessionStream(backendId, sessionId);
  const live = useGlobalEvents();
  const backend = live.backends.find((b) => b.id === backendId);
  const { session, messages, interrupts, lastError } = view.state;
  const link = linkState(view.connection, backend);
  const busy = session ? session.status !== "idle" && session.status !== "error" : false;

  useEffect(() => {
    if (session?.title) setBaseTitle(`${session.title} · Switchboard`);
    return () => setBaseTitle("Switchboard");
  }, [session?.title]);

  // Expose the store to end-to-end tests (cutting the stream on purpose).
  useEffect(() => {
    (window as unknown as { __sbSession?: typeof store }).__sbSession = store;
  }, [store]);

  const send = useCallback(
    async (text: string) => {
      const body: PromptBody = { parts: [{ type: "text", text }] };
      await apiSend("POST", `${sessionPath(backendId, sessionId)}/prompt`, body);
    },
    [backendId, sessionId],
  );
  const abort = useCallback(async () => {
    await apiSend("POST", `${sessionPath(backendId, sessionId)}/abort`);
  }, [backendId, sessionId]);

  if (view.loadError && !view.loaded) {
    return (
      <div className="grid flex-1 place-items-center p-8 text-center" data-testid="session-load-error">
        <div>
          <h1 className="text-[15px] font-semibold">{view.loadError.status === 404 ? "Session not found" : "Cannot load this session"}</h1>
          <p className="mt-1 text-[13px] text-muted">{view.loadError.message}</p>
          {view.loadError.status !== 404 && <p className="mt-2 text-[12px] text-faint">Retrying…</p>}
        </div>
      </div>
    );
  }

  const disabledReason = !view.loaded ? "Loading…" : link === "down" ? "The backend is down — waiting for it to come back" : undefined;

  return (
    <div className="flex h-full min-h-0 flex-col" data-testid="session-view" data-loaded={view.loaded}>
      <SessionHeader session={session} backend={backend} link={link} {...(backend?.error ? { linkDetail: backend.error } : {})} />
      <Timeline
        backendId={backendId}
        session={session}
        messages={messages}
        interrupts={interrupts}
        {...(lastError ? { lastError } : {})}
        hasOlder={view.hasOlder}
        loadingOlder={view.loadingOlder}
        onLoadOlder={() => void store.loadOlder()}
      />
      <Composer busy={busy} canAbort={backend?.capabilities.abort ?? true} {...(disabledReason ? { disabledReason } : {})} onSend={send} onAbort={abort} />
    </div>
  );
}
