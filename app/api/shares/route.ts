import { fromReplica } from "@/server/replicas/forward";
import { CreateShareBody, EmptyQuery, ListSharesQuery } from "@/lib/api";
import { json, readBody, readQuery, requestPerson, route } from "@/server/http";
import { requestOrigin, shares } from "@/server/shares";

export const dynamic = "force-dynamic";

/** Share links of the console (all, or one session's with `?backendId&sessionId`). */
export const GET = route(async (req) => {
  const q = readQuery(req, ListSharesQuery);
  return json({ items: (await shares()).list(q) });
});

/** Create a share link; the answer carries the token once. */
export const POST = route(async (req) => {
  readQuery(req, EmptyQuery);
  const body = await readBody(req, CreateShareBody);
  const svc = await shares();
  // Replica mode: a live share is made where its session runs.
  if (svc.remote?.runsElsewhere(body.backendId)) {
    const made = await svc.remote.forward(req, body.backendId, body);
    // The share is in the database now: this replica knows it before its link is handed out.
    if (made.ok) await svc.refreshShares();
    return made;
  }
  const created = await svc.create(body, requestOrigin(req), requestPerson(req));
  // Made for another replica (replica mode): it reads the share back as soon as it has the answer.
  if (fromReplica(req)) await svc.written();
  return json(created, { status: 201, headers: { "cache-control": "no-store" } });
});
