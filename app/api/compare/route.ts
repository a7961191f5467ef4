import { EmptyQuery } from "@/lib/api";
import { CreateCompareBody } from "@/lib/compare-api";
import { app } from "@/server/app-access";
import { json, readBody, readQuery, requestPerson, route } from "@/server/http";

export const dynamic = "force-dynamic";

/**
 * One prompt (with its attached files and `@` mentions) on two to four targets, each in its own
 * worktree → 201 the group (docs/compare.md).
 */
export const POST = route(async (req) => {
  readQuery(req, EmptyQuery);
  const body = await readBody(req, CreateCompareBody, 12_000_000);
  const group = await (await app()).compare.create(body, requestPerson(req));
  return json(
    { ...group, sessions: group.members.map((m) => ({ backendId: m.backendId, sessionId: m.sessionId })) },
    { status: 201 },
  );
});

/** The comparisons, newest first `{items}`. */
export const GET = route(async (req) => {
  readQuery(req, EmptyQuery);
  return json({ items: (await app()).compare.list() });
});
