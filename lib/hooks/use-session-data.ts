"use client";
/**
 * What an open session's view shows: its live state (stream + global events), its backend and link,
 * the backend's models and agents, what the next prompt runs with, and the values derived from the
 * messages that the header, the timeline and the composer read.
 */
import { useQuery } from "@tanstack/react-query";
import { useEffect, useMemo, useState } from "react";
import type { AgentList, ModelList } from "../api";
import { can } from "../capabilities";
import { apiGet } from "../client/api-client";
import { takePrefill } from "../client/fork-prefill";
import { setBaseTitle } from "../client/page-title";
import type { InitialSnapshot } from "../client/session-store";
import { linkState } from "../link-state";
import type { ModelRef } from "../model";
import { childSessionIds } from "../timeline/incremental";
import { messagesShape } from "../timeline/reducer";
import { currentContext, isBusy, mergeChanges, revertIndex, turns } from "../timeline/selectors";
import { useGlobalEvents } from "./use-global-events";
import { useHydrated } from "./use-hydrated";
import { useSessionStream } from "./use-session-stream";

export function useSessionData(backendId: string, sessionId: string, initial: InitialSnapshot | undefined) {
  const { view, store } = useSessionStream(backendId, sessionId, initial);
  const hydrated = useHydrated();
  const live = useGlobalEvents();
  const backend = live.backends.find((b) => b.id === backendId);
  const { session, messages } = view.state;
  const link = linkState(view.connection, backend);
  const busy = isBusy(session?.status);
  const label = backend?.label ?? "This backend";

  const [prefill, setPrefill] = useState<string>();
  const [pickedModel, setPickedModel] = useState<ModelRef>();
  const [pickedAgent, setPickedAgent] = useState<string>();

  useEffect(() => {
    const p = takePrefill(backendId, sessionId);
    if (p) setPrefill(p);
  }, [backendId, sessionId]);

  useEffect(() => {
    if (session?.title) setBaseTitle(`${session.title} · Switchboard`);
    return () => setBaseTitle("Switchboard");
  }, [session?.title]);

  const models = useQuery({
    queryKey: ["models", backendId],
    queryFn: () => apiGet<ModelList>(`/api/backends/${encodeURIComponent(backendId)}/models`),
    enabled: can(backend, "models") && backend?.status === "ready",
    staleTime: 60_000,
  });
  const agents = useQuery({
    queryKey: ["agents", backendId],
    queryFn: () => apiGet<AgentList>(`/api/backends/${encodeURIComponent(backendId)}/agents`),
    enabled: can(backend, "agents") && backend?.status === "ready",
    staleTime: 60_000,
  });

  const lastUser = useMemo(() => {
    for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.role === "user") return messages[i];
    return undefined;
  }, [messages]);
  // What the next prompt runs with: the user's pick, else what the last prompt used. Nothing is sent
  // otherwise, so the backend applies its own configured default (shown in the pickers).
  const sendModel: ModelRef | undefined = pickedModel ?? lastUser?.model ?? session?.model;
  const sendAgent: string | undefined =
    pickedAgent ??
    (lastUser?.agent && agents.data?.items.some((a) => a.id === lastUser.agent) ? lastUser.agent : undefined);
  const model = sendModel ?? models.data?.default;
  const agent = sendAgent ?? agents.data?.default;
  const ctxModel = currentContext(messages)?.message.model ?? model;
  const contextWindow = ctxModel
    ? models.data?.items.find((m) => m.id === ctxModel.id && (!ctxModel.provider || m.provider === ctxModel.provider))
        ?.contextWindow
    : undefined;
  // Turns (and the files they changed) depend only on the list's shape: deltas keep the token.
  const shape = messagesShape(messages);
  // biome-ignore lint/correctness/useExhaustiveDependencies: keyed on the list's shape; streaming deltas keep it
  const changedFiles = useMemo(() => mergeChanges(turns(messages)).length, [shape]);
  const reverted = revertIndex(messages, session?.revert);
  // Only a pending revert makes this depend on the messages, so streaming does not re-render toolbars.
  // biome-ignore lint/correctness/useExhaustiveDependencies: only a pending revert makes this depend on the messages
  const revertedIds = useMemo(
    () => (reverted >= 0 ? new Set(messages.slice(reverted).map((m) => m.id)) : null),
    [reverted, reverted >= 0 ? messages : null],
  );
  // Subagent sessions the timeline knows of: the branch tree refreshes when one appears.
  // Re-derived only for the messages a frame changed (lib/timeline/incremental.ts).
  const subagents = useMemo(() => childSessionIds(messages).length, [messages]);

  return {
    view,
    store,
    hydrated,
    backend,
    link,
    busy,
    label,
    /** A prompt handed over by the fork that opened this session. */
    prefill,
    models,
    agents,
    setPickedModel,
    setPickedAgent,
    /** What the next prompt sends (undefined: the backend's default), and what the pickers show. */
    sendModel,
    sendAgent,
    model,
    agent,
    contextWindow,
    changedFiles,
    /** The index of the first reverted message (-1: none) and the ids from there on. */
    reverted,
    revertedIds,
    subagents,
  };
}

export type SessionData = ReturnType<typeof useSessionData>;
