import { EmptyQuery } from "@/lib/api";
import { capability } from "@/server/capability";
import { json, readQuery, route } from "@/server/http";
import { app, type BackendParams } from "@/server/app-access";

export const dynamic = "force-dynamic";

/** The agents / modes a prompt can run with: `{items: [{id, label, description?}], default?}`. */
export const GET = route<BackendParams>(async (req, { backendId }) => {
  readQuery(req, EmptyQuery);
  const { backends } = await app();
  const adapter = backends.require(backendId);
  return json(await capability(adapter, "agents", adapter.agents)());
});
