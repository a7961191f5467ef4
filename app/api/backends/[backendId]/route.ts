import { EmptyBody, EmptyQuery } from "@/lib/api";
import { json, readBody, readQuery, route } from "@/server/http";
import { app, type BackendParams } from "@/server/app-access";

export const dynamic = "force-dynamic";

export const GET = route<BackendParams>(async (req, { backendId }) => {
  readQuery(req, EmptyQuery);
  const { backends } = await app();
  return json(backends.describe(backends.require(backendId)));
});

export const DELETE = route<BackendParams>(async (req, { backendId }) => {
  readQuery(req, EmptyQuery);
  await readBody(req, EmptyBody);
  const { backends } = await app();
  await backends.remove(backendId);
  return json({ ok: true });
});
