import { EmptyQuery } from "@/lib/api";
import { capability } from "@/server/capability";
import { json, readQuery, route } from "@/server/http";
import { app, type BackendParams } from "@/server/app-access";

export const dynamic = "force-dynamic";

export const GET = route<BackendParams>(async (req, { backendId }) => {
  readQuery(req, EmptyQuery);
  const { backends } = await app();
  const adapter = backends.require(backendId);
  return json(await capability(adapter, "models", adapter.models)());
});
