import { json, route } from "@/server/http";
import { shares } from "@/server/shares";

export const dynamic = "force-dynamic";

export const DELETE = route<{ patternId: string }>(async (_req, { patternId }) => {
  (await shares()).deletePattern(patternId);
  return json({ ok: true });
});
