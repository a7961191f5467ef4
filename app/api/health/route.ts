import { VERSION } from "@/server/app";
import { json, route } from "@/server/http";

export const dynamic = "force-dynamic";

export const GET = route(async () => json({ ok: true, version: VERSION }));
