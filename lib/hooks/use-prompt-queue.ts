"use client";
/**
 * The composer's sending: a prompt goes at once when the agent is idle; written while it works, it is
 * queued and the queue is drained one prompt at a time once the session is idle again.
 */
import { useCallback, useEffect, useRef, useState } from "react";
import type { Attachment } from "../attachments";

/** A prompt written while the agent was working, sent when it is idle again. */
export interface QueuedPrompt {
  id: number;
  text: string;
  files: Attachment[];
  mentions: string[];
}

export interface PromptQueueOptions {
  busy: boolean;
  /** Why nothing can be sent now: the queue waits. */
  disabledReason: string | undefined;
  onSend(text: string, files: Attachment[], mentions: string[]): Promise<void>;
  /** The error line: a failed send's message, or undefined when a send starts. */
  onError(message: string | undefined): void;
}

export function usePromptQueue({ busy, disabledReason, onSend, onError }: PromptQueueOptions) {
  const [queue, setQueue] = useState<QueuedPrompt[]>([]);
  const [inflight, setInflight] = useState(false);
  const nextId = useRef(1);

  /** Sends one prompt; false when it failed (the error line says why). */
  const send = useCallback(
    async (t: string, attached: Attachment[], mentions: string[]) => {
      setInflight(true);
      onError(undefined);
      try {
        await onSend(t, attached, mentions);
        // Hold the next queued prompt until the backend reports the turn (or a short grace).
        setTimeout(() => setInflight(false), 1500);
        return true;
      } catch (err) {
        onError(err instanceof Error ? err.message : "Could not send the prompt");
        setInflight(false);
        return false;
      }
    },
    [onSend, onError],
  );

  useEffect(() => {
    if (busy) setInflight(false);
  }, [busy]);

  // Drain the queue when the session is idle.
  useEffect(() => {
    if (busy || inflight || disabledReason || queue.length === 0) return;
    const [first, ...rest] = queue;
    setQueue(rest);
    void send(first!.text, first!.files, first!.mentions).then((ok) => {
      if (!ok) setQueue((q) => [first!, ...q]);
    });
  }, [busy, inflight, disabledReason, queue, send]);

  /** A prompt sent now would overtake others, or the agent is working: it waits in the queue. */
  const mustQueue = busy || inflight || queue.length > 0;
  const enqueue = (text: string, files: Attachment[], mentions: string[]) =>
    setQueue((q) => [...q, { id: nextId.current++, text, files, mentions }]);
  const remove = (id: number) => setQueue((all) => all.filter((x) => x.id !== id));

  return { queue, mustQueue, send, enqueue, remove };
}
