import { A2aCardRequest, EmptyQuery } from "@/lib/api";
import { previewAgent } from "@/server/backends/a2a/client";
import { json, readBody, readQuery, route } from "@/server/http";

export const dynamic = "force-dynamic";

/** An A2A agent's card, read by the server (with the token, which stays here) before the agent is added. */
export const POST = route(async (req) => {
  readQuery(req, EmptyQuery);
  const { url, token } = await readBody(req, A2aCardRequest);
  return json(await previewAgent(url, token));
});
