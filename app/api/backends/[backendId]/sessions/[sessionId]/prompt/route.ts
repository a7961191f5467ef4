import { EmptyQuery, PromptBody } from "@/lib/api";
import { json, readBody, readQuery, requestPerson, route } from "@/server/http";
import { app, type SessionParams } from "@/server/app-access";
import { confineFileParts } from "@/server/sessions/files";

export const dynamic = "force-dynamic";

export const POST = route<SessionParams>(async (req, { backendId, sessionId }) => {
  readQuery(req, EmptyQuery);
  const body = await readBody(req, PromptBody, 12_000_000);
  const a = await app();
  // Mentioned files (`file://` parts) stay inside the session's directory.
  await confineFileParts(a, backendId, sessionId, body);
  const adapter = a.backends.require(backendId);
  // The session's next new user message is this person's (docs/people.md, "Attribution").
  const who = requestPerson(req);
  const withdraw = who ? a.attribution.expectPrompt(backendId, sessionId, who) : undefined;
  try {
    await adapter.prompt(sessionId, body);
  } catch (err) {
    withdraw?.();
    throw err;
  }
  return json({ accepted: true }, { status: 202 });
});
