import { CreateRedactionPatternBody, EmptyQuery } from "@/lib/api";
import { json, readBody, readQuery, route } from "@/server/http";
import { shares } from "@/server/shares";

export const dynamic = "force-dynamic";

/** The built-in redaction rules and the user's own patterns. */
export const GET = route(async (req) => {
  readQuery(req, EmptyQuery);
  return json((await shares()).redactionSettings());
});

/** Add a pattern (literal or regular expression); it applies to every share at once. */
export const POST = route(async (req) => {
  readQuery(req, EmptyQuery);
  const body = await readBody(req, CreateRedactionPatternBody);
  return json((await shares()).addPattern(body), { status: 201 });
});
