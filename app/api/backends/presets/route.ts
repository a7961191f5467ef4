import { EmptyQuery } from "@/lib/api";
import { detectPresets } from "@/server/backends/kinds";
import { json, readQuery, route } from "@/server/http";

export const dynamic = "force-dynamic";

/** Ready-made backends of every kind (the kind table), each marked available when its binary is installed. */
export const GET = route(async (req) => {
  readQuery(req, EmptyQuery);
  return json({ items: detectPresets() });
});
