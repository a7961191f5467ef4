import { CreateShareBody, EmptyQuery, ListSharesQuery } from "@/lib/api";
import { json, readBody, readQuery, route } from "@/server/http";
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
  if (svc.remote?.runsElsewhere(body.backendId)) return svc.remote.forward(req, body.backendId, body);
  const created = await svc.create(body, requestOrigin(req));
  return json(created, { status: 201, headers: { "cache-control": "no-store" } });
});
