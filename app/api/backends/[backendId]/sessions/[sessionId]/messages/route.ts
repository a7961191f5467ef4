import { MessagesQuery } from "@/lib/api";
import { ApiError } from "@/server/errors";
import { json, readQuery, route } from "@/server/http";
import { app, type SessionParams } from "@/server/routes";

export const dynamic = "force-dynamic";

export const GET = route<SessionParams>(async (req, { backendId, sessionId }) => {
  const q = readQuery(req, MessagesQuery);
  const { backends } = await app();
  const adapter = backends.require(backendId);
  if (!adapter.loadMessages) throw ApiError.conflict(`${adapter.info().label} keeps no paged history`);
  return json(await adapter.loadMessages(sessionId, { limit: q.limit, ...(q.before ? { before: q.before } : {}) }));
});
