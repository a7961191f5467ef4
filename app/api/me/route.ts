import { EmptyQuery } from "@/lib/api";
import { principalOf } from "@/server/auth/console-auth";
import { ApiError } from "@/server/errors";
import { json, readQuery, route } from "@/server/http";

export const dynamic = "force-dynamic";

/** Who is signed in: `{ user: { id, name, email }, role, via: "oidc" | "token" }`. */
export const GET = route(async (req) => {
  readQuery(req, EmptyQuery);
  const me = principalOf(req.headers);
  if (!me) throw new ApiError("unauthorized", "Not signed in");
  return json(me, { headers: { "cache-control": "no-store" } });
});
