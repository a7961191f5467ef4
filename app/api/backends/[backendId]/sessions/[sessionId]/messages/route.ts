import { MessagesQuery } from "@/lib/api";
import { json, readQuery, route } from "@/server/http";
import { app, type SessionParams } from "@/server/app-access";
import { capability } from "@/server/capability";

export const dynamic = "force-dynamic";

export const GET = route<SessionParams>(async (req, { backendId, sessionId }) => {
  const q = readQuery(req, MessagesQuery);
  const { backends, hub } = await app();
  const adapter = backends.require(backendId);
  const page = await capability(
    adapter,
    "history",
    adapter.loadMessages,
  )(sessionId, { limit: q.limit, ...(q.before ? { before: q.before } : {}) });
  // Older messages carry who sent and answered them, as the snapshot's do.
  return json({ ...page, items: hub.annotated(backendId, sessionId, page.items) });
});
