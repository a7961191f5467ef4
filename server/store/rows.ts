import "server-only";
import { z } from "zod";
import { Message, Session, Todo } from "@/lib/model";
import { log } from "../log";
import type { ForkRecord, StoredShare, StoredTranscript } from "./store";

/**
 * The rows both engines store (server/store/sqlite-store.ts, postgres-store.ts: the same tables and
 * columns) and what they become. A stored JSON column that no longer parses is skipped, logged.
 */

export interface ForkRow {
  backend_id: string;
  session_id: string;
  source_session_id: string;
  source_message_id: string | null;
  created_at: number;
}

export const toFork = (r: ForkRow): ForkRecord => ({
  backendId: r.backend_id,
  sessionId: r.session_id,
  sourceSessionId: r.source_session_id,
  ...(r.source_message_id ? { sourceMessageId: r.source_message_id } : {}),
  createdAt: r.created_at,
});

export interface ShareRow {
  id: string;
  token_hash: string;
  backend_id: string;
  session_id: string;
  session_title: string;
  up_to_message_id: string | null;
  up_to_created_at: number | null;
  /** 0/1 in SQLite, a boolean in PostgreSQL. */
  live: number | boolean;
  include_tool_output: number | boolean;
  created_at: number;
  expires_at: number | null;
  revoked_at: number | null;
  last_access_at: number | null;
  access_count: number;
  created_by_id: string | null;
  created_by_name: string | null;
}

export const SHARE_COLUMNS =
  "id, token_hash, backend_id, session_id, session_title, up_to_message_id, up_to_created_at, live, include_tool_output, created_at, expires_at, revoked_at, last_access_at, access_count, created_by_id, created_by_name";

export function shareFromRow(r: ShareRow): StoredShare {
  return {
    id: r.id,
    tokenHash: r.token_hash,
    backendId: r.backend_id,
    sessionId: r.session_id,
    sessionTitle: r.session_title,
    ...(r.up_to_message_id !== null ? { upToMessageId: r.up_to_message_id } : {}),
    ...(r.up_to_created_at !== null ? { upToCreatedAt: r.up_to_created_at } : {}),
    live: Boolean(r.live),
    includeToolOutput: Boolean(r.include_tool_output),
    createdAt: r.created_at,
    expiresAt: r.expires_at,
    ...(r.revoked_at !== null ? { revokedAt: r.revoked_at } : {}),
    ...(r.last_access_at !== null ? { lastAccessAt: r.last_access_at } : {}),
    accessCount: r.access_count,
    ...(r.created_by_id ? { createdBy: { id: r.created_by_id, name: r.created_by_name ?? "" } } : {}),
  };
}

export type TranscriptRow = {
  backend_id: string;
  session_id: string;
  session: string;
  messages?: string | null;
  todos: string | null;
  agent_session_id: string | null;
  updated_at: number;
};

function parseJson<T>(schema: z.ZodType<T>, text: string | null | undefined): T | undefined {
  if (!text) return undefined;
  try {
    const r = schema.safeParse(JSON.parse(text));
    return r.success ? r.data : undefined;
  } catch {
    return undefined;
  }
}

export function toTranscript(r: TranscriptRow): StoredTranscript | undefined {
  const session = parseJson(Session, r.session);
  if (!session) {
    log.warn("ignoring a stored session that does not parse", { backendId: r.backend_id, sessionId: r.session_id });
    return undefined;
  }
  const messages = parseJson(z.array(Message), r.messages);
  const todos = parseJson(z.array(Todo), r.todos);
  return {
    backendId: r.backend_id,
    sessionId: r.session_id,
    session,
    updatedAt: r.updated_at,
    ...(messages ? { messages } : {}),
    ...(todos ? { todos } : {}),
    ...(r.agent_session_id ? { agentSessionId: r.agent_session_id } : {}),
  };
}
