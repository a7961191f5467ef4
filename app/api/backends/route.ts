import { BackendDefinition, EmptyQuery } from "@/lib/api";
import { confineBackendDirs } from "@/server/backends/kinds";
import { json, readBody, readQuery, route } from "@/server/http";
import { app } from "@/server/app-access";

export const dynamic = "force-dynamic";

export const GET = route(async (req) => {
  readQuery(req, EmptyQuery);
  const { backends } = await app();
  return json({ items: backends.list() });
});

export const POST = route(async (req) => {
  readQuery(req, EmptyQuery);
  const def = await readBody(req, BackendDefinition);
  const { backends, config } = await app();
  // Where it would run (an embedded OpenCode's `directory`, a stdio agent's `cwd`) is realpath'd
  // and must be inside the workspace roots, symlinks included (403; 400 when missing).
  return json(backends.create(await confineBackendDirs(def, config.workspaceRoots)), { status: 201 });
});
