import { EmptyQuery } from "@/lib/api";
import { ApiError } from "@/server/errors";
import { json, readQuery, route } from "@/server/http";
import { app, type BackendParams } from "@/server/routes";

export const dynamic = "force-dynamic";

export const GET = route<BackendParams>(async (req, { backendId }) => {
  readQuery(req, EmptyQuery);
  const { backends } = await app();
  const adapter = backends.require(backendId);
  if (!adapter.models) throw ApiError.conflict(`${adapter.info().label} does not offer a model list`);
  return json(await adapter.models());
});
