import "server-only";
import { z } from "zod";
import { Message, Session, Todo } from "@/lib/model";
import { log } from "../../log";
import type { StoredTranscript } from "../store";
import { all, get, type Program, run, type Schema } from "./program";

/** Sessions of backends that keep no history themselves (ACP agents without loadSession, zot). */
const TABLE = (time: string) => `CREATE TABLE transcripts (
     backend_id TEXT NOT NULL,
     session_id TEXT NOT NULL,
     session TEXT NOT NULL,
     messages TEXT,
     todos TEXT,
     agent_session_id TEXT,
     updated_at ${time} NOT NULL,
     PRIMARY KEY (backend_id, session_id)
   );
   CREATE INDEX transcripts_by_backend ON transcripts (backend_id, updated_at DESC);`;

export const schema: Schema = { sqlite: { 4: TABLE("INTEGER") }, postgres: { 1: TABLE("BIGINT") } };

export const COLUMNS = "backend_id, session_id, session, messages, todos, agent_session_id, updated_at";
/** Newest first. */
const ORDER = "updated_at DESC, session_id";

export type Row = {
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

/** A row as a transcript; a session that no longer parses is skipped, logged. */
export function toTranscript(r: Row): StoredTranscript[] {
  const session = parseJson(Session, r.session);
  if (!session) {
    log.warn("ignoring a stored session that does not parse", { backendId: r.backend_id, sessionId: r.session_id });
    return [];
  }
  const messages = parseJson(z.array(Message), r.messages);
  const todos = parseJson(z.array(Todo), r.todos);
  return [
    {
      backendId: r.backend_id,
      sessionId: r.session_id,
      session,
      updatedAt: r.updated_at,
      ...(messages ? { messages } : {}),
      ...(todos ? { todos } : {}),
      ...(r.agent_session_id ? { agentSessionId: r.agent_session_id } : {}),
    },
  ];
}

export const programs = {
  *getTranscript(backendId: string, sessionId: string): Program<StoredTranscript | undefined> {
    const row = yield* get<Row>(
      `SELECT ${COLUMNS} FROM transcripts WHERE backend_id = ? AND session_id = ?`,
      backendId,
      sessionId,
    );
    return row ? toTranscript(row)[0] : undefined;
  },
  /** Without `messages`. */
  *listTranscripts(backendId: string, limit = 1000): Program<StoredTranscript[]> {
    const rows = yield* all<Row>(
      `SELECT backend_id, session_id, session, todos, agent_session_id, updated_at FROM transcripts
       WHERE backend_id = ? ORDER BY ${ORDER} LIMIT ?`,
      backendId,
      limit,
    );
    return rows.flatMap(toTranscript);
  },
  *putTranscript(t: StoredTranscript): Program<void> {
    yield* run(
      `INSERT INTO transcripts (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (backend_id, session_id) DO UPDATE SET session = excluded.session, messages = excluded.messages,
         todos = excluded.todos, agent_session_id = excluded.agent_session_id, updated_at = excluded.updated_at`,
      t.backendId,
      t.sessionId,
      JSON.stringify(t.session),
      t.messages ? JSON.stringify(t.messages) : null,
      t.todos ? JSON.stringify(t.todos) : null,
      t.agentSessionId ?? null,
      t.updatedAt,
    );
  },
  *deleteTranscript(backendId: string, sessionId: string): Program<void> {
    yield* run("DELETE FROM transcripts WHERE backend_id = ? AND session_id = ?", backendId, sessionId);
  },
  *deleteTranscripts(backendId: string): Program<void> {
    yield* run("DELETE FROM transcripts WHERE backend_id = ?", backendId);
  },
};

/** Every kept transcript, messages included, by backend and session (the export). */
export const ALL_TRANSCRIPTS = `SELECT ${COLUMNS} FROM transcripts ORDER BY backend_id, session_id`;
