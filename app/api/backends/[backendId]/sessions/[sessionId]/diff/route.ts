import { DiffQuery } from "@/lib/api";
import { capability } from "@/server/capability";
import { json, readQuery, route } from "@/server/http";
import { app, type SessionParams } from "@/server/app-access";

export const dynamic = "force-dynamic";

/** `{items: FileDiff[]}` — the files the turn of user message `messageId` changed. */
export const GET = route<SessionParams>(async (req, { backendId, sessionId }) => {
  const q = readQuery(req, DiffQuery);
  const { backends } = await app();
  const adapter = backends.require(backendId);
  return json({ items: await capability(adapter, "diff", adapter.diff)(sessionId, q.messageId) });
});
