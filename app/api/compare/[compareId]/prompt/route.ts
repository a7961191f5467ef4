import { EmptyQuery } from "@/lib/api";
import { ComparePromptBody } from "@/lib/compare-api";
import { app } from "@/server/app-access";
import { json, readBody, readQuery, requestPerson, route } from "@/server/http";

export const dynamic = "force-dynamic";

/** A follow-up prompt to every session of the group, or to one `{text, sessionId?}` → 202. */
export const POST = route<{ compareId: string }>(async (req, { compareId }) => {
  readQuery(req, EmptyQuery);
  const body = await readBody(req, ComparePromptBody, 200_000);
  await (await app()).compare.prompt(compareId, body.text, body.sessionId, requestPerson(req));
  return json({ accepted: true }, { status: 202 });
});
