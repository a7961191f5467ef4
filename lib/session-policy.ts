/**
 * What an open session allows right now, and why not: the reason each action is disabled (the
 * backend cannot do it, the backend is down, the agent is working), as the session view shows it.
 * Pure (unit-tested).
 */
import { type CapabilityName, can, capabilityReason } from "./capabilities";
import type { LinkState } from "./link-state";
import type { Backend } from "./model";

export interface SessionPolicyInput {
  backend: Pick<Backend, "capabilities"> | undefined;
  /** The backend's name in the reasons ("This backend" when it is not known). */
  label: string;
  link: LinkState;
  busy: boolean;
}

/** Why `cap` cannot be used now; `needsIdle`: not while the agent works on a turn. Undefined: it can. */
export function actionReason(p: SessionPolicyInput, cap: CapabilityName, needsIdle = true): string | undefined {
  if (!can(p.backend, cap)) return capabilityReason(p.label, cap);
  if (p.link === "down") return "The backend is down";
  if (needsIdle && p.busy) return "Wait for the agent to finish this turn";
  return undefined;
}

/** Why a message cannot be forked from: backends that fork whole sessions only (ACP) offer it in the session menu. */
export function forkMessageReason(p: SessionPolicyInput): string | undefined {
  return (
    actionReason(p, "fork") ?? (can(p.backend, "forkMessages") ? undefined : capabilityReason(p.label, "forkMessages"))
  );
}

/** Why the conversation cannot be compacted. */
export function compactReason(p: SessionPolicyInput, messageCount: number): string | undefined {
  return actionReason(p, "compact") ?? (messageCount === 0 ? "Nothing to compact yet" : undefined);
}

/** Why no prompt can be sent (the composer and the review panel say it). */
export function promptReason(loaded: boolean, link: LinkState): string | undefined {
  return !loaded ? "Loading…" : link === "down" ? "The backend is down — waiting for it to come back" : undefined;
}
