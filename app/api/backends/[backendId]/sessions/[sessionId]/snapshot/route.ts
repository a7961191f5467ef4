import { EmptyQuery } from "@/lib/api";
import { json, readQuery, route } from "@/server/http";
import { app, type SessionParams } from "@/server/routes";

export const dynamic = "force-dynamic";

export const GET = route<SessionParams>(async (req, { backendId, sessionId }) => {
  readQuery(req, EmptyQuery);
  const { hub, backends } = await app();
  backends.require(backendId);
  const channel = await hub.open(backendId, sessionId);
  return json(channel.snapshot());
});
