import { EmptyQuery } from "@/lib/api";
import { kindEntries } from "@/server/backends/kinds";
import { json, readQuery, route } from "@/server/http";

export const dynamic = "force-dynamic";

/** The backend kinds this console can run (the kind table), with the form that adds one. */
export const GET = route(async (req) => {
  readQuery(req, EmptyQuery);
  return json({ items: kindEntries().map((k) => ({ kind: k.kind, title: k.title, form: k.form })) });
});
