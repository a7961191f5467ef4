"use client";
import { useRoleReason } from "@/lib/hooks/use-me";
import { useRouter } from "next/navigation";
import { lazy, Suspense, useCallback, useEffect, useMemo, useRef, useState } from "react";
import { capabilityReason, can, type CapabilityName } from "@/lib/capabilities";
import type { InitialSnapshot } from "@/lib/client/session-store";
import { errorText, useSessionActions } from "@/lib/hooks/use-session-actions";
import { useSessionData } from "@/lib/hooks/use-session-data";
import {
  actionReason,
  compactReason,
  forkMessageReason,
  promptReason,
  type SessionPolicyInput,
} from "@/lib/session-policy";
import type { PanelTab } from "../review/panel-tab";
import { PanelPlaceholder } from "../review/panel-placeholder";
import { ShareButton } from "../share/share-button";
import { MessageActionsContext, type MessageActionsValue } from "../timeline/message-actions";
import { ConfirmDialog } from "../ui/dialog";
import { IconAlertCircle, IconX } from "../ui/icons";
import { Composer } from "./composer";
import { DeleteWorktreeChoice, type WorktreeChoice } from "./delete-worktree";
import { RevertBanner } from "./revert-banner";
import { SessionHeader } from "./session-header";
import { SessionSettingsRow } from "./session-settings";
import { Timeline } from "./timeline";
import { useCommands, type Command } from "../shell/commands";

// The review panel (diffs, comments, the plan) loads when it is first opened.
const ReviewPanel = lazy(() => import("../review/review-panel").then((m) => ({ default: m.ReviewPanel })));

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
  // The data the view shows, what the backend allows now (lib/session-policy.ts), and the actions.
  const data = useSessionData(backendId, sessionId, initial);
  const router = useRouter();
  const { view, store, hydrated, backend, link, busy, label, prefill, models, agents, model, agent } = data;
  const { contextWindow, changedFiles, reverted, revertedIds, subagents } = data;
  const { session, messages, interrupts, lastError, todos } = view.state;
  const mentionCap = backend?.capabilities.mentions;
  const { path, actionError, setActionError, fork, revert, unrevert, rename, compact, remove, send, abort } =
    useSessionActions({
      backendId,
      sessionId,
      sendModel: data.sendModel,
      sendAgent: data.sendAgent,
      directory: session?.directory,
      mentions: mentionCap,
      router,
    });

  const [panel, setPanel] = useState<{ tab: PanelTab; turnId?: string } | null>(null);
  const [deleting, setDeleting] = useState<{ busy: boolean; error?: string } | null>(null);
  const [worktreeChoice, setWorktreeChoice] = useState<WorktreeChoice>({ remove: false, deleteBranch: false });
  const [sharing, setSharing] = useState(false);

  const policy = useMemo<SessionPolicyInput>(() => ({ backend, label, link, busy }), [backend, label, link, busy]);
  const reasonFor = useCallback(
    (cap: CapabilityName, needsIdle = true): string | undefined => actionReason(policy, cap, needsIdle),
    [policy],
  );

  const actions = useMemo<MessageActionsValue>(() => {
    const forkReason = forkMessageReason(policy);
    const revertReason = reasonFor("revert");
    return {
      fork: { offered: can(backend, "fork"), ...(forkReason ? { disabledReason: forkReason } : {}) },
      revert: { offered: can(backend, "revert"), ...(revertReason ? { disabledReason: revertReason } : {}) },
      onFork: (m) => fork(m),
      onRevert: (m) => revert(m),
      isReverted: (id) => revertedIds?.has(id) ?? false,
    };
  }, [backend, policy, reasonFor, fork, revert, revertedIds]);

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
  }, [hasSession, canAbortNow, paletteForkReason, abort, fork, setActionError]);
  useCommands(commands);
  const roleReason = useRoleReason("operate");

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

  const disabledReason = roleReason ?? promptReason(view.loaded, link);
  const renameReason = reasonFor("rename", false);
  const compactDisabled = compactReason(policy, messages.length);
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
          run: rename,
        }}
        fork={{ offered: true, ...(forkReason ? { disabledReason: forkReason } : {}), run: () => fork() }}
        compact={{
          offered: true,
          ...(compactDisabled ? { disabledReason: compactDisabled } : {}),
          run: compact,
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
              ? { models: models.data?.items ?? [], onModel: data.setPickedModel }
              : backend
                ? { modelReason: capabilityReason(label, "models") }
                : {})}
            {...(model ? { model } : {})}
            {...(can(backend, "agents") ? { agents: agents.data?.items ?? [], onAgent: data.setPickedAgent } : {})}
            {...(agent ? { agent } : {})}
            {...(session?.settings?.commands?.length ? { commands: session.settings.commands } : {})}
            {...(backend?.capabilities.attachments ? { attachments: backend.capabilities.attachments } : {})}
            {...(mentionCap ? { filesUrl: `${path}/files` } : {})}
          />
        </div>
        {panel && session ? (
          <Suspense fallback={<PanelPlaceholder />}>
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
          </Suspense>
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
            remove(worktreeChoice).then(
              () => setDeleting(null),
              (err: unknown) => setDeleting({ busy: false, error: errorText(err, "Could not delete the session") }),
            );
          }}
        >
          “{session.title}” and its messages are deleted from {label}. This cannot be undone.
          {session.directory ? (
            <DeleteWorktreeChoice
              backendId={backendId}
              sessionId={sessionId}
              value={worktreeChoice}
              onChange={setWorktreeChoice}
            />
          ) : null}
        </ConfirmDialog>
      ) : null}
    </div>
  );
}
