import { json, route } from "@/server/http";
import { app, type BackendParams } from "@/server/routes";

export const dynamic = "force-dynamic";

export const GET = route<BackendParams>(async (_req, { backendId }) => {
  const { backends } = await app();
  return json(backends.describe(backends.require(backendId)));
});

export const DELETE = route<BackendParams>(async (_req, { backendId }) => {
  const { backends } = await app();
  await backends.remove(backendId);
  return json({ ok: true });
});
