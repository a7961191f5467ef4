import "server-only";
import { randomBytes } from "node:crypto";
import type { OpalTurn } from "./turn-state";

/** The record of a path a branch left: `left:<the branch's console id>:<Opal id>`. */
export const DETACHED = "left:";
/**
 * The record of a session deleted here: Opal's `session/delete` never finds its files (quirk 2),
 * so its list keeps it.
 */
export const DELETED = "deleted:";

/** A sub-agent's session: a child of the session whose `sub_agent` call runs it. */
export interface Child {
  id: string;
  parentId: string;
  title: string;
  createdAt: number;
  /** The parent's `sub_agent` call that runs it. */
  callId: string;
  turn?: OpalTurn;
}

/** What the adapter knows of one session (the hub holds its timeline state). */
export interface Runtime {
  /** The console's id (Opal's own for sessions it made; a new one for a branch). */
  id: string;
  opalId: string;
  directory: string;
  title: string;
  createdAt: number;
  updatedAt: number;
  /** The process generation the session was started or resumed in. */
  gen?: number;
  attaching?: Promise<void>;
  turn?: OpalTurn;
  /** The user message of the running turn. */
  userId?: string;
  /** Stop's grace (../shared/turn-lifecycle.ts): Opal queues prompts and keeps the turn itself. */
  stopTimer?: ReturnType<typeof setTimeout> | undefined;
  model?: string;
  thinking?: string;
  /** Sub-agents by Opal's `sub_session_id`. */
  children: Map<string, Child>;
  forkedFrom?: { sessionId: string; messageId?: string };
  /** Left by a branch: the path the console recorded before it; the Opal session went on in `left`. */
  left?: string;
  /** The title was made here from the first prompt: Opal's generated title replaces it. */
  autoTitle?: boolean;
  /** Prompts Opal queued (`message_queued`) and has not applied yet. */
  queued: string[];
}

export const newId = () => randomBytes(8).toString("hex");
