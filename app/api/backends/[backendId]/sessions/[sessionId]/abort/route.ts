import { EmptyBody, EmptyQuery } from "@/lib/api";
import { json, readBody, readQuery, route } from "@/server/http";
import { app, type SessionParams } from "@/server/app-access";
import { capability } from "@/server/capability";

export const dynamic = "force-dynamic";

export const POST = route<SessionParams>(async (req, { backendId, sessionId }) => {
  readQuery(req, EmptyQuery);
  await readBody(req, EmptyBody);
  const { backends } = await app();
  const adapter = backends.require(backendId);
  await capability(adapter, "abort", adapter.abort)(sessionId);
  return json({ ok: true });
});
