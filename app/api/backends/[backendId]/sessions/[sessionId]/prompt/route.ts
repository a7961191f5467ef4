import { EmptyQuery, PromptBody } from "@/lib/api";
import { json, readBody, readQuery, route } from "@/server/http";
import { app, type SessionParams } from "@/server/routes";

export const dynamic = "force-dynamic";

export const POST = route<SessionParams>(async (req, { backendId, sessionId }) => {
  readQuery(req, EmptyQuery);
  const body = await readBody(req, PromptBody, 12_000_000);
  const { backends } = await app();
  await backends.require(backendId).prompt(sessionId, body);
  return json({ accepted: true }, { status: 202 });
});
