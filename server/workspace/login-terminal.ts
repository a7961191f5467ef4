import "server-only";
import type { ConsoleApp } from "../app";
import { ApiError } from "../errors";
import { log } from "../log";
import { agentEnvironment } from "../processes/agent-env";
import { agentUserOf, environmentFor } from "../processes/agent-user";
import { resolveCommand } from "../processes/resolve-command";
import type { TerminalInfo } from "./terminals";

/** The scope a backend's login terminal is kept under (one at a time per backend). */
export const LOGIN_SCOPE = "login";

/**
 * Settings → *Run in terminal* (docs/backends/acp.md#authentication): a backend's terminal login
 * (`authMethods[].runInTerminal`) in a pseudo-terminal — the command Settings shows, with the
 * environment the agent process gets (its config's `env` and the stored credentials over the
 * console's basics; SWITCHBOARD_AGENT_USER's user and HOME when set) and in the agent's directory, so
 * the login lands where the agent reads it. When the command exits with 0, the backend restarts and
 * reads the new login.
 */
export async function openLoginTerminal(
  console: Pick<ConsoleApp, "backends" | "terminals">,
  backendId: string,
  methodId: string,
  size: { cols: number; rows: number },
): Promise<TerminalInfo> {
  const adapter = console.backends.require(backendId);
  if (!adapter.terminalLogin) throw ApiError.conflict(`${adapter.info().label} has no terminal login`);
  const login = adapter.terminalLogin(methodId);
  let env = agentEnvironment({ own: login.env, name: `${backendId} login` });
  let user: ReturnType<typeof agentUserOf>;
  try {
    user = agentUserOf();
  } catch (err) {
    throw ApiError.conflict(err instanceof Error ? err.message : String(err));
  }
  if (user) env = environmentFor(user, env, new Set(Object.keys(login.env)));
  const [cmd, ...args] = login.run;
  const file = cmd ? resolveCommand(cmd, { cwd: login.cwd, ...(env.PATH ? { pathEnv: env.PATH } : {}) }) : undefined;
  if (!file) throw ApiError.conflict(`command not found: ${cmd ?? "(empty)"} (looked in PATH and node_modules/.bin)`);
  return console.terminals.openCommand(
    backendId,
    LOGIN_SCOPE,
    {
      file,
      args,
      env,
      cwd: login.cwd,
      display: login.display,
      ...(user ? { uid: user.uid, gid: user.gid } : {}),
      onExit: (code) => {
        log.info("terminal login exited", { backend: backendId, method: methodId, code });
        if (code !== 0 || !adapter.restart) return;
        adapter
          .restart()
          .catch((err: unknown) =>
            log.warn("restart after a terminal login failed", { backend: backendId, error: String(err) }),
          );
      },
    },
    size,
  );
}
