import { EmptyQuery, PromptBody } from "@/lib/api";
import { json, readBody, readQuery, route } from "@/server/http";
import { app, type SessionParams } from "@/server/app-access";
import { confineFileParts } from "@/server/sessions/files";

export const dynamic = "force-dynamic";

export const POST = route<SessionParams>(async (req, { backendId, sessionId }) => {
  readQuery(req, EmptyQuery);
  const body = await readBody(req, PromptBody, 12_000_000);
  const a = await app();
  // Mentioned files (`file://` parts) stay inside the session's directory.
  await confineFileParts(a, backendId, sessionId, body);
  await a.backends.require(backendId).prompt(sessionId, body);
  return json({ accepted: true }, { status: 202 });
});
