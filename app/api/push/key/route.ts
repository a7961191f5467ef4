import { EmptyQuery } from "@/lib/api";
import type { PushKey } from "@/lib/push-api";
import { json, readQuery, route } from "@/server/http";
import { push } from "@/server/push";

export const dynamic = "force-dynamic";

/** The VAPID public key a browser subscribes with (`applicationServerKey`). */
export const GET = route(async (req) => {
  readQuery(req, EmptyQuery);
  return json({ publicKey: (await push()).publicKey() } satisfies PushKey);
});
