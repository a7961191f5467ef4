import { CreateRedactionPatternBody } from "@/lib/api";
import { json, readBody, route } from "@/server/http";
import { shares } from "@/server/shares";

export const dynamic = "force-dynamic";

/** The built-in redaction rules and the user's own patterns. */
export const GET = route(async () => json((await shares()).redactionSettings()));

/** Add a pattern (literal or regular expression); it applies to every share at once. */
export const POST = route(async (req) => {
  const body = await readBody(req, CreateRedactionPatternBody);
  return json((await shares()).addPattern(body), { status: 201 });
});
