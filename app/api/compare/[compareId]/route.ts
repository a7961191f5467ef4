import { EmptyQuery } from "@/lib/api";
import { app } from "@/server/app-access";
import { json, readQuery, route } from "@/server/http";

export const dynamic = "force-dynamic";

/** The group with each session's status, reply, usage, changed files and test result. */
export const GET = route<{ compareId: string }>(async (req, { compareId }) => {
  readQuery(req, EmptyQuery);
  return json(await (await app()).compare.view(compareId));
});
