import { BackendDefinition, EmptyQuery } from "@/lib/api";
import { resolveWorkspaceDir } from "@/server/auth/workspace";
import { json, readBody, readQuery, route } from "@/server/http";
import { app } from "@/server/routes";

export const dynamic = "force-dynamic";

export const GET = route(async (req) => {
  readQuery(req, EmptyQuery);
  const { backends } = await app();
  return json({ items: backends.list() });
});

export const POST = route(async (req) => {
  const def = await readBody(req, BackendDefinition);
  const { backends, config } = await app();
  // A directory the embedded server would run in must be inside the workspace roots (403).
  if (def.kind === "opencode" && def.config.directory) {
    def.config.directory = await resolveWorkspaceDir(def.config.directory, config.workspaceRoots);
  }
  return json(backends.create(def), { status: 201 });
});
