import { CompareFilesQuery } from "@/lib/compare-api";
import { app } from "@/server/app-access";
import { json, readQuery, route } from "@/server/http";

export const dynamic = "force-dynamic";

/** The repository folder's files matching an `@` mention in the start form `{items}` (docs/compare.md). */
export const GET = route(async (req) => {
  const q = readQuery(req, CompareFilesQuery);
  return json(await (await app()).compare.files(q));
});
