import { EmptyQuery, SearchSettingsBody } from "@/lib/api";
import { json, readBody, readQuery, route } from "@/server/http";
import { app } from "@/server/app-access";

export const dynamic = "force-dynamic";

/** Whether tool outputs are indexed; a change indexes every session again. */
export const PUT = route(async (req) => {
  readQuery(req, EmptyQuery);
  const body = await readBody(req, SearchSettingsBody);
  const { search } = await app();
  search.setToolOutputs(body.toolOutputs);
  return json({ toolOutputs: search.toolOutputs, backends: await search.status() });
});
