import "server-only";
/** What the adapter sends back for a pending interrupt (see `CopilotInterrupts.answer`). */
export type Reply =
  | { kind: "sent" }
  | { kind: "cancel" }
  | { kind: "question"; answer: string; wasFreeform: boolean }
  | { kind: "dismissed" };
