import { EmptyBody, EmptyQuery } from "@/lib/api";
import { json, readBody, readQuery, route } from "@/server/http";
import { shares } from "@/server/shares";

export const dynamic = "force-dynamic";

export const DELETE = route<{ patternId: string }>(async (req, { patternId }) => {
  readQuery(req, EmptyQuery);
  await readBody(req, EmptyBody);
  (await shares()).deletePattern(patternId);
  return json({ ok: true });
});
