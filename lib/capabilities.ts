/**
 * What each capability lets the user do, in words: the API's 409 message and the UI's "why is this
 * disabled" hover text come from here, so they always agree (gated in server/capability.ts; docs/api.md, "Capabilities").
 */
import type { Backend, Capabilities } from "./model";

export type CapabilityName = Exclude<keyof Capabilities, "interrupts" | "attachments" | "mentions">;

const CAN: Record<CapabilityName, string> = {
  fork: "fork sessions",
  forkMessages: "fork from a message: use Fork session in the session menu to fork all of it",
  revert: "revert or unrevert changes",
  diff: "show the changes of a turn",
  compact: "compact a conversation",
  models: "list or switch models",
  share: "share sessions",
  history: "page through older messages",
  abort: "stop a running turn",
  rename: "rename sessions",
  delete: "delete sessions",
  search: "search sessions",
  directories: "open sessions in other directories",
  agents: "switch agents or modes",
  todos: "keep a todo list",
  children: "list subagent sessions",
};

/** Whether the backend declares the capability (undefined backend: not known yet → false). */
export function can(backend: Pick<Backend, "capabilities"> | undefined, cap: CapabilityName): boolean {
  return backend?.capabilities[cap] === true;
}

/** "OpenCode cannot fork sessions" — why an action is not offered. */
export function capabilityReason(label: string, cap: CapabilityName): string {
  return `${label} cannot ${CAN[cap]}`;
}
