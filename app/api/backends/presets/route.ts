import { EmptyQuery } from "@/lib/api";
import { detectPresets } from "@/server/backends/acp/presets";
import { json, readQuery, route } from "@/server/http";

export const dynamic = "force-dynamic";

/** Ready-made ACP agents, each marked available when its binary is installed. */
export const GET = route(async (req) => {
  readQuery(req, EmptyQuery);
  return json({ items: detectPresets() });
});
