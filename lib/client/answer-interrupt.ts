import type { InterruptAnswer } from "../api";
import { apiSend, sessionPath } from "./api-client";

/** Answers an interrupt through the session it is shown in (its own, or the parent of a subagent). */
export function answerInterrupt(backendId: string, sessionId: string, interruptId: string, answer: InterruptAnswer) {
  return apiSend<{ ok: true }>(
    "POST",
    `${sessionPath(backendId, sessionId)}/interrupts/${encodeURIComponent(interruptId)}`,
    answer,
  );
}
