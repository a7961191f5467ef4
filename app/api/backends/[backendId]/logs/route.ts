import { EmptyQuery, type BackendLogs } from "@/lib/api";
import { json, readQuery, route } from "@/server/http";
import { app, type BackendParams } from "@/server/app-access";

export const dynamic = "force-dynamic";

/** The stderr tail of a stdio agent (empty for backends without a process of their own). */
export const GET = route<BackendParams>(async (req, { backendId }) => {
  readQuery(req, EmptyQuery);
  const { backends } = await app();
  const adapter = backends.require(backendId);
  const body: BackendLogs = { lines: adapter.logs?.() ?? [] };
  return json(body);
});
