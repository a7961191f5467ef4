import { EmptyQuery } from "@/lib/api";
import { app } from "@/server/app-access";
import { json, readQuery, route } from "@/server/http";
import { worktreeReadiness } from "@/server/workspace/worktree";

export const dynamic = "force-dynamic";

/** The console's workspace and whether New session can give a session its own worktree there. */
export const GET = route(async (req) => {
  readQuery(req, EmptyQuery);
  const { config } = await app();
  const ready = await worktreeReadiness(config.workspace, config.workspaceRoots);
  return json({ workspace: config.workspace, worktrees: ready.ok, ...(ready.ok ? {} : { reason: ready.reason }) });
});
