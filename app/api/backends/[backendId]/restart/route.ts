import { EmptyBody, EmptyQuery } from "@/lib/api";
import { ApiError } from "@/server/errors";
import { json, readBody, readQuery, route } from "@/server/http";
import { app, type BackendParams } from "@/server/app-access";

export const dynamic = "force-dynamic";

/** Restart a stdio agent's process (e.g. after logging in to it in a terminal). No body, or `{}`. */
export const POST = route<BackendParams>(async (req, { backendId }) => {
  readQuery(req, EmptyQuery);
  await readBody(req, EmptyBody);
  const { backends } = await app();
  const adapter = backends.require(backendId);
  if (!adapter.restart) throw ApiError.conflict(`${adapter.info().label} cannot be restarted from the console`);
  await adapter.restart();
  return json({ ok: true });
});
