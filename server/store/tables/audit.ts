import "server-only";
import { type AuditEntry, AuditAction, type AuditQuery } from "@/lib/people";
import { all, type Program, run, type Schema, type Value } from "./program";

/**
 * The audit log (docs/people.md, "Audit log"): append-only — each engine's own trigger refuses an
 * UPDATE or DELETE, and the store has no call that would make one. Newest first.
 */
const TABLE = (id: string, time: string, json: string) => `CREATE TABLE audit_log (
     id ${id},
     at ${time} NOT NULL,
     actor_id TEXT NOT NULL,
     actor_name TEXT NOT NULL,
     actor_via TEXT NOT NULL,
     action TEXT NOT NULL,
     backend_id TEXT,
     session_id TEXT,
     detail ${json}
   );
   CREATE INDEX audit_log_session ON audit_log (session_id, id);`;

export const schema: Schema = {
  sqlite: {
    6: `${TABLE("INTEGER PRIMARY KEY AUTOINCREMENT", "INTEGER", "TEXT")}
   CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
     BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
   CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
     BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;`,
  },
  postgres: {
    2: `${TABLE("BIGSERIAL PRIMARY KEY", "BIGINT", "JSONB")}
   CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN RAISE EXCEPTION 'the audit log is append-only'; END $$;
   CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON audit_log
     FOR EACH STATEMENT EXECUTE FUNCTION audit_log_append_only();`,
  },
};

interface Row {
  id: number | string;
  at: number;
  actor_id: string;
  actor_name: string;
  actor_via: string;
  action: string;
  backend_id: string | null;
  session_id: string | null;
  detail: string | Record<string, unknown> | null;
}

/** A row as an entry; a row this build does not know (an action from a newer one) is skipped. */
function toEntry(r: Row): AuditEntry[] {
  const action = AuditAction.safeParse(r.action);
  if (!action.success) return [];
  let detail: unknown = r.detail;
  if (typeof detail === "string") {
    try {
      detail = JSON.parse(detail);
    } catch {
      detail = undefined;
    }
  }
  return [
    {
      id: Number(r.id),
      at: Number(r.at),
      actor: { id: r.actor_id, name: r.actor_name, via: r.actor_via === "oidc" ? "oidc" : "token" },
      action: action.data,
      ...(r.backend_id ? { backendId: r.backend_id } : {}),
      ...(r.session_id ? { sessionId: r.session_id } : {}),
      ...(detail && typeof detail === "object" && !Array.isArray(detail)
        ? { detail: detail as Record<string, unknown> }
        : {}),
    },
  ];
}

/** The WHERE clause and its values for a query. */
function where(q: Omit<AuditQuery, "limit">): { sql: string; values: Value[] } {
  const clauses: [string, ...Value[]][] = [];
  if (q.before !== undefined) clauses.push(["id < ?", q.before]);
  if (q.action !== undefined) clauses.push(["action = ?", q.action]);
  if (q.sessionId !== undefined) clauses.push(["session_id = ?", q.sessionId]);
  if (q.actor !== undefined) clauses.push(["(actor_id = ? OR actor_name = ?)", q.actor, q.actor]);
  return {
    sql: clauses.length ? `WHERE ${clauses.map(([c]) => c).join(" AND ")}` : "",
    values: clauses.flatMap(([, ...v]) => v),
  };
}

export const programs = {
  *appendAudit(e: Omit<AuditEntry, "id">): Program<void> {
    yield* run(
      "INSERT INTO audit_log (at, actor_id, actor_name, actor_via, action, backend_id, session_id, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
      e.at,
      e.actor.id,
      e.actor.name,
      e.actor.via,
      e.action,
      e.backendId ?? null,
      e.sessionId ?? null,
      e.detail ? JSON.stringify(e.detail) : null,
    );
  },
  *listAudit(q: AuditQuery): Program<AuditEntry[]> {
    const w = where(q);
    const rows = yield* all<Row>(`SELECT * FROM audit_log ${w.sql} ORDER BY id DESC LIMIT ?`, ...w.values, q.limit);
    return rows.flatMap(toEntry);
  },
};
