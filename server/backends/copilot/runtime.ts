import "server-only";
import type { CopilotTimeline } from "./normalize";

/** What the adapter knows of one session (the timeline mapping, its attachment to the live CLI). */
export interface Runtime {
  id: string;
  tl: CopilotTimeline;
  /** The process generation this session was created in or resumed into (undefined: not attached). */
  gen?: number;
  attaching?: Promise<void>;
  /** A revert waiting for the next prompt: the rewind point (the user message's event id). */
  revert?: { messageId: string };
  /** Stop's grace (../shared/turn-lifecycle.ts): the CLI queues prompts and keeps the turn itself. */
  stopTimer?: ReturnType<typeof setTimeout> | undefined;
  settings: { model?: string; reasoningEffort?: string; mode: string };
  localTitle?: string;
  /** The session's slash commands (`session.commands.list`), read on the first prompt that starts with `/`. */
  commands?: Set<string>;
  /** A reload asked for by another client's change (`session.lifecycle`), debounced. */
  reloadTimer?: ReturnType<typeof setTimeout>;
}
