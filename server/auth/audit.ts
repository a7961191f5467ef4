import "server-only";
import type { AuditAction, AuditActor, AuditEntry, Me } from "@/lib/people";
import { describeError } from "../errors";
import { log } from "../log";
import { principalOf } from "./console-auth";
import { ruleFor, type RouteRule } from "./permissions";

/** An entry as recorded; the store gives it its id. */
export type NewAuditEntry = Omit<AuditEntry, "id">;

/**
 * Where audit entries go: the console's store, set by the app when it starts (server/app.ts). Kept on
 * globalThis because each route is a bundle of its own.
 */
export type AuditSink = (entry: NewAuditEntry) => Promise<void> | void;
const g = globalThis as typeof globalThis & { __switchboardAudit?: AuditSink };

export function setAuditSink(sink: AuditSink | undefined): void {
  g.__switchboardAudit = sink;
}

export function actorOf(who: Me): AuditActor {
  return { id: who.user.id, name: who.user.name || who.user.email || who.user.id, via: who.via };
}

/** Records one entry (never throws: an entry that cannot be written is logged). */
export async function audit(entry: NewAuditEntry): Promise<void> {
  const sink = g.__switchboardAudit;
  if (!sink) {
    log.warn("audit entry with no store to keep it", { action: entry.action });
    return;
  }
  try {
    await sink(entry);
  } catch (err) {
    log.error("audit entry not written", { action: entry.action, error: describeError(err) });
  }
}

export function auditEntry(
  who: Me,
  action: AuditAction,
  extra: { backendId?: string | undefined; sessionId?: string | undefined; detail?: Record<string, unknown> } = {},
): NewAuditEntry {
  return {
    at: Date.now(),
    actor: actorOf(who),
    action,
    ...(extra.backendId ? { backendId: extra.backendId } : {}),
    ...(extra.sessionId ? { sessionId: extra.sessionId } : {}),
    ...(extra.detail && Object.keys(extra.detail).length ? { detail: extra.detail } : {}),
  };
}

/** The audited rule a request falls under, if any (server/auth/permissions.ts). */
export function auditedRule(req: Request): RouteRule | undefined {
  const rule = ruleFor(req.method, new URL(req.url).pathname);
  return rule?.audit ? rule : undefined;
}

async function jsonObject(from: Request | Response | undefined): Promise<Record<string, unknown>> {
  if (!from) return {};
  try {
    const v = JSON.parse(await from.text()) as unknown;
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * After an audited route succeeded (server/http.ts): who did it, what, where, and the detail its rule
 * keeps of the request (`body`, a copy taken before the handler read it) and of the answer.
 */
export async function auditRoute(
  req: Request,
  rule: RouteRule,
  params: Readonly<Record<string, unknown>>,
  body: Request | undefined,
  res: Response,
): Promise<void> {
  const who = principalOf(req.headers);
  if (!who || !rule.audit) return;
  const answer = rule.detail && res.headers.get("content-type")?.includes("json") ? res.clone() : undefined;
  const str = (v: unknown) => (typeof v === "string" ? v : undefined);
  const detail = {
    ...(str(params.shareId) ? { shareId: params.shareId } : {}),
    ...(rule.detail ? rule.detail(await jsonObject(body), await jsonObject(answer)) : {}),
  };
  await audit(
    auditEntry(who, rule.audit, {
      backendId: str(params.backendId),
      sessionId: str(params.sessionId),
      detail,
    }),
  );
}
