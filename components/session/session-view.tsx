"use client";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { AgentList, ModelList, PromptBody } from "@/lib/api";
import { capabilityReason, can, type CapabilityName } from "@/lib/capabilities";
import { apiGet, apiSend, sessionPath } from "@/lib/client/api-client";
import { setBaseTitle } from "@/lib/client/page-title";
import { mentionParts } from "@/lib/mentions";
import { useGlobalEvents } from "@/lib/hooks/use-global-events";
import { useSessionStream } from "@/lib/hooks/use-session-stream";
import { useHydrated } from "@/lib/hooks/use-hydrated";
import type { InitialSnapshot } from "@/lib/client/session-store";
import type { Message, ModelRef, Session } from "@/lib/model";
import { childSessionIds } from "@/lib/timeline/incremental";
import { messagesShape } from "@/lib/timeline/reducer";
import { currentContext, isBusy, mergeChanges, revertIndex, turns, userText } from "@/lib/timeline/selectors";
import { ReviewPanel, type PanelTab } from "../review/review-panel";
import { ShareButton } from "../share/share-dialog";
import { MessageActionsContext, type MessageActionsValue } from "../timeline/message-actions";
import { ConfirmDialog } from "../ui/dialog";
import { IconAlertCircle, IconUndo, IconX } from "../ui/icons";
import { type Attachment, Composer } from "./composer";
import { linkState, SessionHeader } from "./session-header";
import { SessionSettingsRow } from "./session-settings";
import { Timeline } from "./timeline";
import { useCommands, type Command } from "../shell/commands";

const prefillKey = (backendId: string, sessionId: string) => `sb-prefill:${backendId}/${sessionId}`;

/** A prompt handed over to a forked session (forking from a user message re-asks it). */
function takePrefill(backendId: string, sessionId: string): string | undefined {
  const k = prefillKey(backendId, sessionId);
  const v = sessionStorage.getItem(k) ?? undefined;
  if (v !== undefined) sessionStorage.removeItem(k);
  return v;
}

function errorText(err: unknown, fallback: string): string {
  return err instanceof Error && err.message ? err.message : fallback;
}

function RevertBanner({
  count,
  onUnrevert,
  reason,
  deferred,
}: {
  count: number;
  onUnrevert(): Promise<void>;
  reason?: string;
  deferred?: boolean;
}) {
  const [working, setWorking] = useState(false);
  return (
    <div className="shrink-0 border-t border-warn/30 bg-warn/8 px-4 py-2" data-testid="revert-banner" role="status">
      <div className="mx-auto flex max-w-[880px] items-center gap-2.5 text-[12.5px]">
        <IconUndo size={14} className="shrink-0 text-warn" />
        <div className="min-w-0 flex-1">
          {deferred ? (
            <>
              <span className="font-medium text-fg">Reverting to before this message.</span>{" "}
              <span className="text-muted">
                The files and {count > 0 ? `${count} message${count === 1 ? "" : "s"}` : "the reverted messages"} are
                rewound when you send the next prompt.
              </span>
            </>
          ) : (
            <>
              <span className="font-medium text-fg">Files restored to before this message.</span>{" "}
              <span className="text-muted">
                {count > 0 ? `${count} message${count === 1 ? "" : "s"} ` : "The reverted messages "}
                will be dropped when you send the next prompt.
              </span>
            </>
          )}
        </div>
        <button
          type="button"
          data-testid="unrevert"
          disabled={working || Boolean(reason)}
          title={reason ?? "Bring the files and the messages back"}
          onClick={() => {
            setWorking(true);
            void onUnrevert().finally(() => setWorking(false));
          }}
          className="inline-flex h-7 shrink-0 items-center rounded-md border border-warn/40 px-2.5 text-[12px] font-medium text-warn hover:bg-warn/15 disabled:opacity-50"
        >
          {working ? "Restoring…" : "Unrevert"}
        </button>
      </div>
    </div>
  );
}

/** `initial`: the snapshot the server rendered the page with (app/(console)/sessions/…/page.tsx), when it had one in time. */
export function SessionView({
  backendId,
  sessionId,
  initial,
}: {
  backendId: string;
  sessionId: string;
  initial?: InitialSnapshot;
}) {
  const { view, store } = useSessionStream(backendId, sessionId, initial);
  const hydrated = useHydrated();
  const live = useGlobalEvents();
  const router = useRouter();
  const qc = useQueryClient();
  const backend = live.backends.find((b) => b.id === backendId);
  const { session, messages, interrupts, lastError, todos } = view.state;
  const link = linkState(view.connection, backend);
  const busy = isBusy(session?.status);
  const label = backend?.label ?? "This backend";
  const path = sessionPath(backendId, sessionId);
  const mentionCap = backend?.capabilities.mentions;
  const directory = session?.directory;

  const [panel, setPanel] = useState<{ tab: PanelTab; turnId?: string } | null>(null);
  const [actionError, setActionError] = useState<string>();
  const [deleting, setDeleting] = useState<{ busy: boolean; error?: string } | null>(null);
  const [prefill, setPrefill] = useState<string>();
  const [pickedModel, setPickedModel] = useState<ModelRef>();
  const [pickedAgent, setPickedAgent] = useState<string>();
  const [sharing, setSharing] = useState(false);

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

  const reasonFor = useCallback(
    (cap: CapabilityName, needsIdle = true): string | undefined => {
      if (!can(backend, cap)) return capabilityReason(label, cap);
      if (link === "down") return "The backend is down";
      if (needsIdle && busy) return "Wait for the agent to finish this turn";
      return undefined;
    },
    [backend, label, link, busy],
  );

  const refreshLists = useCallback(() => {
    void qc.invalidateQueries({ queryKey: ["sessions", backendId] });
    void qc.invalidateQueries({ queryKey: ["tree", backendId] });
  }, [qc, backendId]);

  const openForked = useCallback(
    (s: Session, prompt?: string) => {
      if (prompt) sessionStorage.setItem(prefillKey(backendId, s.id), prompt);
      refreshLists();
      router.push(`/sessions/${encodeURIComponent(backendId)}/${encodeURIComponent(s.id)}`);
    },
    [backendId, refreshLists, router],
  );

  const guard = useCallback(async (what: string, fn: () => Promise<void>) => {
    setActionError(undefined);
    try {
      await fn();
    } catch (err) {
      setActionError(errorText(err, `Could not ${what}`));
    }
  }, []);

  const fork = useCallback(
    (m?: Message) =>
      guard("fork the session", async () => {
        const s = await apiSend<Session>("POST", `${path}/fork`, m ? { messageId: m.id } : {});
        openForked(s, m?.role === "user" ? userText(m) : undefined);
      }),
    [guard, path, openForked],
  );
  const revert = useCallback(
    (m: Message) =>
      guard("revert", async () => {
        await apiSend("POST", `${path}/revert`, { messageId: m.id });
      }),
    [guard, path],
  );
  const unrevert = useCallback(
    () =>
      guard("unrevert", async () => {
        await apiSend("POST", `${path}/unrevert`);
      }),
    [guard, path],
  );

  const actions = useMemo<MessageActionsValue>(() => {
    // Backends that fork whole sessions only (ACP) offer it in the session menu, not per message.
    const forkReason =
      reasonFor("fork") ?? (can(backend, "forkMessages") ? undefined : capabilityReason(label, "forkMessages"));
    const revertReason = reasonFor("revert");
    return {
      fork: { offered: can(backend, "fork"), ...(forkReason ? { disabledReason: forkReason } : {}) },
      revert: { offered: can(backend, "revert"), ...(revertReason ? { disabledReason: revertReason } : {}) },
      onFork: (m) => fork(m),
      onRevert: (m) => revert(m),
      isReverted: (id) => revertedIds?.has(id) ?? false,
    };
  }, [backend, label, reasonFor, fork, revert, revertedIds]);

  const send = useCallback(
    async (text: string, files: Attachment[] = [], mentions: string[] = []) => {
      const body: PromptBody = {
        parts: [
          ...(text ? [{ type: "text" as const, text }] : []),
          ...files.map((f) => ({ type: "file" as const, mime: f.mime, url: f.url, filename: f.name })),
          // Each mentioned file the way the backend takes it (`Capabilities.mentions.carry`).
          ...mentionParts(mentions, directory, mentionCap),
        ],
        ...(sendModel?.provider ? { model: { provider: sendModel.provider, id: sendModel.id } } : {}),
        ...(sendAgent ? { agent: sendAgent } : {}),
      };
      await apiSend("POST", `${path}/prompt`, body);
    },
    [path, sendModel, sendAgent, directory, mentionCap],
  );
  const abort = useCallback(async () => {
    await apiSend("POST", `${path}/abort`);
  }, [path]);

  // Esc closes the panel when nothing else has the focus.
  const panelRef = useRef(panel);
  panelRef.current = panel;
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== "Escape" || !panelRef.current || e.defaultPrevented) return;
      const t = e.target as HTMLElement | null;
      if (t && (t.tagName === "TEXTAREA" || t.tagName === "INPUT" || t.tagName === "SELECT")) return;
      setPanel(null);
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);

  // The open session's actions in the command palette (components/shell/command-palette.tsx).
  const canAbortNow = busy && (backend?.capabilities.abort ?? true);
  const paletteForkReason = reasonFor("fork");
  const hasSession = Boolean(session);
  const commands = useMemo<Command[]>(() => {
    if (!hasSession) return [];
    const group = "This session";
    return [
      ...(canAbortNow
        ? [
            {
              id: "stop",
              group,
              label: "Stop the running turn",
              keywords: "abort cancel interrupt",
              shortcut: "Esc",
              run: () => void abort().catch((err: unknown) => setActionError(errorText(err, "Could not stop"))),
            },
          ]
        : []),
      {
        id: "fork",
        group,
        label: "Fork this session",
        keywords: "branch copy",
        ...(paletteForkReason ? { disabledReason: paletteForkReason } : {}),
        run: () => void fork(),
      },
      { id: "review", group, label: "Review changes", keywords: "diff files", run: () => setPanel({ tab: "changes" }) },
      { id: "plan", group, label: "Show the plan", keywords: "todo tasks", run: () => setPanel({ tab: "plan" }) },
      { id: "share", group, label: "Share this session", keywords: "link read-only", run: () => setSharing(true) },
    ];
  }, [hasSession, canAbortNow, paletteForkReason, abort, fork]);
  useCommands(commands);

  if (view.loadError && !view.loaded) {
    return (
      <div className="grid flex-1 place-items-center p-8 text-center" data-testid="session-load-error">
        <div>
          <h1 className="text-[15px] font-semibold">
            {view.loadError.status === 404 ? "Session not found" : "Cannot load this session"}
          </h1>
          <p className="mt-1 text-[13px] text-muted">{view.loadError.message}</p>
          {view.loadError.status !== 404 && <p className="mt-2 text-[12px] text-faint">Retrying…</p>}
        </div>
      </div>
    );
  }

  const disabledReason = !view.loaded
    ? "Loading…"
    : link === "down"
      ? "The backend is down — waiting for it to come back"
      : undefined;
  const renameReason = reasonFor("rename", false);
  const compactReason = reasonFor("compact") ?? (messages.length === 0 ? "Nothing to compact yet" : undefined);
  const deleteReason = reasonFor("delete", false);
  const forkReason = reasonFor("fork");
  const togglePanel = (tab: PanelTab) => setPanel((p) => (p?.tab === tab ? null : { tab }));

  return (
    <div className="flex h-full min-h-0 flex-col" data-testid="session-view" data-loaded={hydrated && view.loaded}>
      <SessionHeader
        session={session}
        backend={backend}
        link={link}
        {...(backend?.error ? { linkDetail: backend.error } : {})}
        actions={
          <ShareButton
            backendId={backendId}
            sessionId={sessionId}
            title={session?.title ?? ""}
            messages={messages}
            disabled={!view.loaded || !session}
            open={sharing}
            onOpenChange={setSharing}
            className="phone:hidden"
          />
        }
        onShare={() => setSharing(true)}
        shareDisabled={!view.loaded || !session}
        messages={messages}
        todos={todos}
        {...(contextWindow ? { contextWindow } : {})}
        changedFiles={changedFiles}
        treeVersion={`${session?.forkedFrom?.sessionId ?? ""}:${subagents}`}
        panel={panel?.tab ?? null}
        onPanel={togglePanel}
        rename={{
          offered: true,
          ...(renameReason ? { disabledReason: renameReason } : {}),
          run: (title) =>
            guard("rename the session", async () => {
              await apiSend<Session>("PATCH", path, { title });
              refreshLists();
            }),
        }}
        fork={{ offered: true, ...(forkReason ? { disabledReason: forkReason } : {}), run: () => fork() }}
        compact={{
          offered: true,
          ...(compactReason ? { disabledReason: compactReason } : {}),
          run: () =>
            guard("compact the conversation", async () => {
              await apiSend(
                "POST",
                `${path}/compact`,
                sendModel?.provider ? { model: { provider: sendModel.provider, id: sendModel.id } } : {},
              );
            }),
        }}
        remove={{
          offered: true,
          ...(deleteReason ? { disabledReason: deleteReason } : {}),
          run: () => setDeleting({ busy: false }),
        }}
        review={{ offered: true }}
        plan={{ offered: can(backend, "todos") }}
      />
      <SessionSettingsRow backendId={backendId} session={session} />
      {actionError ? (
        <div
          role="alert"
          data-testid="action-error"
          className="flex shrink-0 items-center gap-2 border-b border-err/30 bg-err/8 px-4 py-1.5 text-[12.5px] text-err"
        >
          <IconAlertCircle size={14} className="shrink-0" />
          <span className="min-w-0 flex-1 truncate" title={actionError}>
            {actionError}
          </span>
          <button
            type="button"
            onClick={() => setActionError(undefined)}
            className="grid size-6 place-items-center rounded hover:bg-err/15"
            aria-label="Dismiss"
          >
            <IconX size={12} />
          </button>
        </div>
      ) : null}
      <div className="relative flex min-h-0 flex-1">
        <div className="flex min-w-0 flex-1 flex-col">
          <MessageActionsContext.Provider value={actions}>
            <Timeline
              backendId={backendId}
              session={session}
              messages={messages}
              interrupts={interrupts}
              {...(lastError ? { lastError } : {})}
              hasOlder={view.hasOlder}
              loadingOlder={view.loadingOlder}
              onLoadOlder={() => void store.loadOlder()}
              onOpenChanges={(turnId) => setPanel({ tab: "changes", turnId })}
            />
          </MessageActionsContext.Provider>
          {session?.revert ? (
            <RevertBanner
              count={reverted >= 0 ? messages.length - reverted : 0}
              onUnrevert={unrevert}
              deferred={session.revert.deferred === true}
              {...(reasonFor("revert") ? { reason: reasonFor("revert") } : {})}
            />
          ) : null}
          <Composer
            key={prefill ?? ""}
            busy={busy}
            canAbort={backend?.capabilities.abort ?? true}
            {...(disabledReason ? { disabledReason } : {})}
            onSend={send}
            onAbort={abort}
            {...(prefill ? { initialText: prefill } : {})}
            {...(can(backend, "models")
              ? { models: models.data?.items ?? [], onModel: setPickedModel }
              : backend
                ? { modelReason: capabilityReason(label, "models") }
                : {})}
            {...(model ? { model } : {})}
            {...(can(backend, "agents") ? { agents: agents.data?.items ?? [], onAgent: setPickedAgent } : {})}
            {...(agent ? { agent } : {})}
            {...(session?.settings?.commands?.length ? { commands: session.settings.commands } : {})}
            {...(backend?.capabilities.attachments ? { attachments: backend.capabilities.attachments } : {})}
            {...(mentionCap ? { filesUrl: `${path}/files` } : {})}
          />
        </div>
        {panel && session ? (
          <ReviewPanel
            tab={panel.tab}
            onTab={(tab) => setPanel((p) => ({ ...p, tab }))}
            onClose={() => setPanel(null)}
            backendId={backendId}
            sessionId={sessionId}
            messages={messages}
            todos={todos}
            turnId={panel.turnId}
            onTurn={(turnId) => setPanel({ tab: "changes", ...(turnId ? { turnId } : {}) })}
            {...(can(backend, "diff") ? {} : { diffUnavailable: capabilityReason(label, "diff") })}
            {...(session.directory ? { directory: session.directory } : {})}
            onSendPrompt={(text) => send(text)}
            busy={busy}
            {...(disabledReason ? { sendReason: disabledReason } : {})}
          />
        ) : null}
      </div>
      {deleting && session ? (
        <ConfirmDialog
          title="Delete this session?"
          confirmLabel="Delete"
          danger
          busy={deleting.busy}
          {...(deleting.error ? { error: deleting.error } : {})}
          onCancel={() => setDeleting(null)}
          onConfirm={() => {
            setDeleting({ busy: true });
            apiSend("DELETE", path).then(
              () => {
                setDeleting(null);
                void qc.invalidateQueries({ queryKey: ["sessions", backendId] });
                router.push("/");
              },
              (err: unknown) => setDeleting({ busy: false, error: errorText(err, "Could not delete the session") }),
            );
          }}
        >
          “{session.title}” and its messages are deleted from {label}. This cannot be undone.
        </ConfirmDialog>
      ) : null}
    </div>
  );
}
