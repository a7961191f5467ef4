import { AuditQuery } from "@/lib/people";
import { json, readQuery, route } from "@/server/http";
import { app } from "@/server/app-access";

export const dynamic = "force-dynamic";

/** The audit log, newest first (admins only: server/auth/permissions.ts); `before` pages by entry id. */
export const GET = route(async (req) => {
  const q = readQuery(req, AuditQuery);
  const { store } = await app();
  return json({ items: await store.listAudit(q) }, { headers: { "cache-control": "no-store" } });
});
