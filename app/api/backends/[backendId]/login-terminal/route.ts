import { EmptyQuery } from "@/lib/api";
import { LoginTerminalBody } from "@/lib/workspace-api";
import { app, type BackendParams } from "@/server/app-access";
import { json, readBody, readQuery, route } from "@/server/http";
import { openLoginTerminal } from "@/server/workspace/login-terminal";

export const dynamic = "force-dynamic";

/**
 * Runs a terminal login (`{methodId, cols, rows}`, `authMethods[].runInTerminal`) in a terminal of
 * the backend's → 201 `{id, command}`; the backend restarts when it exits with 0 (docs/backends/acp.md).
 */
export const POST = route<BackendParams>(async (req, { backendId }) => {
  readQuery(req, EmptyQuery);
  const { methodId, ...size } = await readBody(req, LoginTerminalBody);
  const t = await openLoginTerminal(await app(), backendId, methodId, size);
  return json({ id: t.id, command: t.command }, { status: 201 });
});
