import { EmptyQuery, InterruptAnswer } from "@/lib/api";
import { ApiError } from "@/server/errors";
import { json, readBody, readQuery, route } from "@/server/http";
import { app, type SessionParams } from "@/server/routes";

export const dynamic = "force-dynamic";

/** Answer a permission or question: `{decision, message?}` · `{answers}` · `{dismiss: true}` · `{text}`. */
export const POST = route<SessionParams & { interruptId: string }>(async (req, { backendId, sessionId, interruptId }) => {
  readQuery(req, EmptyQuery);
  const answer = await readBody(req, InterruptAnswer);
  const { backends } = await app();
  const adapter = backends.require(backendId);
  if (!adapter.answerInterrupt) throw ApiError.conflict(`${adapter.info().label} does not ask for permission or input`);
  await adapter.answerInterrupt(sessionId, interruptId, answer);
  return json({ ok: true });
});
