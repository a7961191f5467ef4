"use client";
import { useState } from "react";
import type { InterruptAnswer } from "@/lib/api";
import { answerInterrupt } from "@/lib/client/answer-interrupt";

/** Sends one answer at a time; keeps the error for display. Nothing is ever sent on its own. */
export function useAnswer(backendId: string, sessionId: string, interruptId: string) {
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<string>();
  const send = async (answer: InterruptAnswer) => {
    if (sending) return;
    setSending(true);
    setError(undefined);
    try {
      await answerInterrupt(backendId, sessionId, interruptId, answer);
    } catch (err) {
      setError(err instanceof Error ? err.message : "Could not send the answer");
      setSending(false);
    }
  };
  return { send, sending, error };
}
