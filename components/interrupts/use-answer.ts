"use client";
import { useState } from "react";
import type { InterruptAnswer } from "@/lib/api";
import { answerInterrupt } from "@/lib/client/answer-interrupt";
import { useRoleReason } from "@/lib/hooks/use-me";

/**
 * Sends one answer at a time; keeps the error for display. Nothing is ever sent on its own. `denied`
 * says why the signed-in person's role may not answer (a viewer): the buttons are disabled with it.
 */
export function useAnswer(backendId: string, sessionId: string, interruptId: string) {
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<string>();
  const denied = useRoleReason("operate");
  const send = async (answer: InterruptAnswer) => {
    if (sending || denied) return;
    setSending(true);
    setError(undefined);
    try {
      await answerInterrupt(backendId, sessionId, interruptId, answer);
    } catch (err) {
      setError(err instanceof Error ? err.message : "Could not send the answer");
      setSending(false);
    }
  };
  return { send, sending, error, denied };
}
