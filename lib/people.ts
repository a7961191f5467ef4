import { z } from "zod";
import { ROLES } from "./roles";

/**
 * People (docs/people.md): who is signed in, with which role, and what each role may do. Shared by
 * the server (enforcement, server/auth/permissions.ts) and the views (what to disable, and why).
 */

export { type Need, ROLES, roleAllows, whyNot } from "./roles";

export const Role = z.enum(ROLES);
export type Role = z.infer<typeof Role>;

export const Person = z.object({
  id: z.string().min(1).max(300),
  name: z.string().max(300),
  email: z.string().max(300),
});
export type Person = z.infer<typeof Person>;

/** `GET /api/me`. */
export const Me = z.object({ user: Person, role: Role, via: z.enum(["oidc", "token"]) });
export type Me = z.infer<typeof Me>;

/** The audit log's actions (docs/people.md, "Audit log"). */
export const AUDIT_ACTIONS = [
  "login",
  "login.refused",
  "logout",
  "prompt",
  "abort",
  "interrupt.answer",
  "fork",
  "revert",
  "share.create",
  "share.revoke",
  "backend.add",
  "backend.remove",
  "settings.change",
  "push.subscribe",
  "push.unsubscribe",
  "git.commit",
  "git.push",
  "git.merge",
  "terminal.open",
  "compare.create",
  "compare.keep",
] as const;
export const AuditAction = z.enum(AUDIT_ACTIONS);
export type AuditAction = z.infer<typeof AuditAction>;

export const AuditActor = z.object({ id: z.string(), name: z.string(), via: z.enum(["oidc", "token"]) });
export type AuditActor = z.infer<typeof AuditActor>;

export const AuditEntry = z.object({
  /** Store-assigned, increasing: the `before` cursor of the next page. */
  id: z.number().int(),
  at: z.number(),
  actor: AuditActor,
  action: AuditAction,
  backendId: z.string().optional(),
  sessionId: z.string().optional(),
  detail: z.record(z.string(), z.unknown()).optional(),
});
export type AuditEntry = z.infer<typeof AuditEntry>;

/** `GET /api/audit`'s query. */
export const AuditQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(1000).default(100),
    before: z.coerce.number().int().min(1).optional(),
    actor: z.string().min(1).max(300).optional(),
    action: AuditAction.optional(),
    sessionId: z.string().min(1).max(300).optional(),
  })
  .strict();
export type AuditQuery = z.infer<typeof AuditQuery>;
