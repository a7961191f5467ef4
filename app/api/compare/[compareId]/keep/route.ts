import { EmptyQuery } from "@/lib/api";
import { KeepBody } from "@/lib/compare-api";
import { app } from "@/server/app-access";
import { json, readBody, readQuery, route } from "@/server/http";

export const dynamic = "force-dynamic";

/** Keeps one session (its branch merged into the base, or to continue) and archives the others. */
export const POST = route<{ compareId: string }>(async (req, { compareId }) => {
  readQuery(req, EmptyQuery);
  const body = await readBody(req, KeepBody);
  return json(await (await app()).compare.keep(compareId, body));
});
