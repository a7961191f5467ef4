import "server-only";
import { type AuditEntry, AuditAction, type AuditQuery } from "@/lib/people";

/**
 * The audit log's table on both engines (docs/people.md, "Audit log"): append-only — each engine's
 * own trigger refuses an UPDATE or DELETE, and the store has no call that would make one.
 */
export const SQLITE_AUDIT_MIGRATION = `CREATE TABLE audit_log (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     at INTEGER NOT NULL,
     actor_id TEXT NOT NULL,
     actor_name TEXT NOT NULL,
     actor_via TEXT NOT NULL,
     action TEXT NOT NULL,
     backend_id TEXT,
     session_id TEXT,
     detail TEXT
   );
   CREATE INDEX audit_log_session ON audit_log (session_id, id);
   CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
     BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
   CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
     BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;`;

export const POSTGRES_AUDIT_MIGRATION = `CREATE TABLE audit_log (
     id BIGSERIAL PRIMARY KEY,
     at BIGINT NOT NULL,
     actor_id TEXT NOT NULL,
     actor_name TEXT NOT NULL,
     actor_via TEXT NOT NULL,
     action TEXT NOT NULL,
     backend_id TEXT,
     session_id TEXT,
     detail JSONB
   );
   CREATE INDEX audit_log_session ON audit_log (session_id, id);
   CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN RAISE EXCEPTION 'the audit log is append-only'; END $$;
   CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON audit_log
     FOR EACH STATEMENT EXECUTE FUNCTION audit_log_append_only();`;

export interface AuditRow {
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

/** The values of an INSERT, in the columns' order (at … detail). */
export function auditValues(e: Omit<AuditEntry, "id">): (string | number | null)[] {
  return [
    e.at,
    e.actor.id,
    e.actor.name,
    e.actor.via,
    e.action,
    e.backendId ?? null,
    e.sessionId ?? null,
    e.detail ? JSON.stringify(e.detail) : null,
  ];
}

export const AUDIT_INSERT_COLUMNS = "at, actor_id, actor_name, actor_via, action, backend_id, session_id, detail";

/** A row as an entry; a row this build does not know (an action from a newer one) is skipped. */
export function auditFromRow(r: AuditRow): AuditEntry[] {
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

/** The WHERE clause and its values for a query; `param(i)` spells the engine's placeholder. */
export function auditWhere(
  q: Omit<AuditQuery, "limit">,
  param: (i: number) => string,
): { where: string; values: (string | number)[] } {
  const clauses: string[] = [];
  const values: (string | number)[] = [];
  const add = (sql: (p: string) => string, v: string | number) => {
    values.push(v);
    clauses.push(sql(param(values.length)));
  };
  if (q.before !== undefined) add((p) => `id < ${p}`, q.before);
  if (q.action !== undefined) add((p) => `action = ${p}`, q.action);
  if (q.sessionId !== undefined) add((p) => `session_id = ${p}`, q.sessionId);
  if (q.actor !== undefined) {
    values.push(q.actor);
    const p = param(values.length);
    values.push(q.actor);
    clauses.push(`(actor_id = ${p} OR actor_name = ${param(values.length)})`);
  }
  return { where: clauses.length ? `WHERE ${clauses.join(" AND ")}` : "", values };
}
