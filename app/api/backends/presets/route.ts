import { detectPresets } from "@/server/backends/acp/presets";
import { json, route } from "@/server/http";

export const dynamic = "force-dynamic";

/** Ready-made ACP agents, each marked available when its binary is installed. */
export const GET = route(async () => json({ items: detectPresets() }));
