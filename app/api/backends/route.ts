import { BackendDefinition } from "@/lib/api";
import { json, readBody, route } from "@/server/http";
import { app } from "@/server/routes";

export const dynamic = "force-dynamic";

export const GET = route(async () => {
  const { backends } = await app();
  return json({ items: backends.list() });
});

export const POST = route(async (req) => {
  const def = await readBody(req, BackendDefinition);
  const { backends } = await app();
  return json(backends.create(def), { status: 201 });
});
