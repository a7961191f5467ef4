import { VERSION } from "@/server/app";
import { EmptyQuery } from "@/lib/api";
import { json, readQuery, route } from "@/server/http";

export const dynamic = "force-dynamic";

export const GET = route(async (req) => {
  readQuery(req, EmptyQuery);
  return json({ ok: true, version: VERSION });
});
