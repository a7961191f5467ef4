"use client";
/**
 * What can be done to an open session: send a prompt, stop the turn, fork, revert and unrevert,
 * rename, compact, delete. Failures of the menu actions land in `actionError` (the view's alert).
 */
import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useState } from "react";
import type { PromptBody } from "../api";
import type { Attachment } from "../attachments";
import { apiSend, sessionPath } from "../client/api-client";
import { handOverPrompt } from "../client/fork-prefill";
import { mentionParts } from "../mentions";
import type { Capabilities, Message, ModelRef, Session } from "../model";
import { userText } from "../timeline/selectors";

export function errorText(err: unknown, fallback: string): string {
  return err instanceof Error && err.message ? err.message : fallback;
}

export interface SessionActionsInput {
  backendId: string;
  sessionId: string;
  /** What the next prompt runs with (undefined: the backend's default). */
  sendModel: ModelRef | undefined;
  sendAgent: string | undefined;
  /** The session's directory, which mentioned paths are relative to. */
  directory: string | undefined;
  mentions: Capabilities["mentions"];
  /** The app's router (Next's `useRouter()`): a fork opens, a deleted session goes home. */
  router: { push(href: string): void };
}

export function useSessionActions({
  backendId,
  sessionId,
  sendModel,
  sendAgent,
  directory,
  mentions: mentionCap,
  router,
}: SessionActionsInput) {
  const qc = useQueryClient();
  const path = sessionPath(backendId, sessionId);
  const [actionError, setActionError] = useState<string>();

  const refreshLists = useCallback(() => {
    void qc.invalidateQueries({ queryKey: ["sessions", backendId] });
    void qc.invalidateQueries({ queryKey: ["tree", backendId] });
  }, [qc, backendId]);

  const openForked = useCallback(
    (s: Session, prompt?: string) => {
      if (prompt) handOverPrompt(backendId, s.id, prompt);
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
  const rename = (title: string) =>
    guard("rename the session", async () => {
      await apiSend<Session>("PATCH", path, { title });
      refreshLists();
    });
  const compact = () =>
    guard("compact the conversation", async () => {
      await apiSend(
        "POST",
        `${path}/compact`,
        sendModel?.provider ? { model: { provider: sendModel.provider, id: sendModel.id } } : {},
      );
    });
  /** Deletes the session and goes home; rejects (for the confirm dialog to show) when it fails. */
  /** Deletes the session; `worktree` says whether its worktree (and its branch) go too. */
  const remove = async (worktree?: { remove: boolean; deleteBranch: boolean }) => {
    const q = worktree?.remove ? `?worktree=remove&branch=${worktree.deleteBranch ? "delete" : "keep"}` : "";
    await apiSend("DELETE", `${path}${q}`);
    void qc.invalidateQueries({ queryKey: ["sessions", backendId] });
    router.push("/");
  };

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

  return { path, actionError, setActionError, fork, revert, unrevert, rename, compact, remove, send, abort };
}
