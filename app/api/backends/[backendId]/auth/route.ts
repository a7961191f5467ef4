import { ApiKeyBody, EmptyQuery } from "@/lib/api";
import { ApiError } from "@/server/errors";
import { json, readBody, readQuery, route } from "@/server/http";
import { app, type BackendParams } from "@/server/app-access";

export const dynamic = "force-dynamic";

/** Give a backend an API key for one of its model providers (`Backend.auth`). The key goes to the agent only. */
export const POST = route<BackendParams>(async (req, { backendId }) => {
  readQuery(req, EmptyQuery);
  const body = await readBody(req, ApiKeyBody);
  const { backends } = await app();
  const adapter = backends.require(backendId);
  const provider = adapter.info().auth?.providers.find((p) => p.id === body.provider);
  if (!adapter.setApiKey || !provider)
    throw ApiError.conflict(
      `${adapter.info().label} takes no API key${adapter.setApiKey ? ` for ${body.provider}` : ""}`,
    );
  if (provider.method !== "api_key")
    throw ApiError.badRequest(`${provider.name} is logged in to with its own flow, not a key`);
  await adapter.setApiKey(body.provider, body.apiKey);
  return json({ ok: true });
});
