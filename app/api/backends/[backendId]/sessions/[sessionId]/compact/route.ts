import { CompactBody, EmptyQuery } from "@/lib/api";
import { capability } from "@/server/capability";
import { json, readBody, readQuery, route } from "@/server/http";
import { app, type SessionParams } from "@/server/app-access";

export const dynamic = "force-dynamic";

/** Summarize the conversation (OpenCode `summarize`); the marker arrives on the event stream. */
export const POST = route<SessionParams>(async (req, { backendId, sessionId }) => {
  readQuery(req, EmptyQuery);
  const body = await readBody(req, CompactBody);
  const { backends } = await app();
  const adapter = backends.require(backendId);
  await capability(adapter, "compact", adapter.compact)(sessionId, body.model);
  return json({ ok: true }, { status: 202 });
});
