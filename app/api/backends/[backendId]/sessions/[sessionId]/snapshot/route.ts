import { EmptyQuery } from "@/lib/api";
import { json, readQuery, route } from "@/server/http";
import { sessionChannel, type SessionParams } from "@/server/app-access";

export const dynamic = "force-dynamic";

export const GET = route<SessionParams>(async (req, { backendId, sessionId }) => {
  readQuery(req, EmptyQuery);
  const channel = await sessionChannel(backendId, sessionId);
  return json(channel.snapshot());
});
