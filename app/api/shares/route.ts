import { CreateShareBody, EmptyQuery, ListSharesQuery } from "@/lib/api";
import { json, readBody, readQuery, requestPerson, route } from "@/server/http";
import { requestOrigin, shares } from "@/server/shares";

export const dynamic = "force-dynamic";

/** Share links of the console (all, or one session's with `?backendId&sessionId`). */
export const GET = route(async (req) => {
  const q = readQuery(req, ListSharesQuery);
  return json({ items: (await shares()).list(q) });
});

/** Create a share link; the answer carries the token once. Made where its session runs. */
export const POST = route(async (req) => {
  readQuery(req, EmptyQuery);
  const body = await readBody(req, CreateShareBody);
  return (await shares()).createFor(req, body, requestOrigin(req), requestPerson(req));
});
