import "server-only";
import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import { BackendDefinition } from "@/lib/api";
import { parseWorkspaceRoots } from "./auth/workspace";
import { dataDirOf } from "./data-dir";
import { log } from "./log";

export interface ConsoleConfig {
  dataDir: string;
  workspace: string;
  /** Directories clients may open sessions in (`SWITCHBOARD_WORKSPACE_ROOTS`), realpath'd. */
  workspaceRoots: string[];
  /** Backends from the environment (`SWITCHBOARD_BACKENDS`, `OPENCODE_BASE_URL`). */
  envBackends: { id: string; def: BackendDefinition }[];
}

export function slug(label: string): string {
  return (
    label
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 40) || "backend"
  );
}

export function readConfig(env: NodeJS.ProcessEnv = process.env): ConsoleConfig {
  const dataDir = dataDirOf(env);
  // The workspace is the user's, read at run time: never a file of the build to trace.
  const ws = path.resolve(/*turbopackIgnore: true*/ env.SWITCHBOARD_WORKSPACE ?? process.cwd());
  const workspace = fs.existsSync(/*turbopackIgnore: true*/ ws) ? fs.realpathSync(/*turbopackIgnore: true*/ ws) : ws;
  const envBackends: ConsoleConfig["envBackends"] = [];
  if (env.SWITCHBOARD_BACKENDS) {
    try {
      const list = z.array(BackendDefinition).parse(JSON.parse(env.SWITCHBOARD_BACKENDS));
      for (const def of list) envBackends.push({ id: slug(def.label), def });
    } catch (err) {
      log.error("SWITCHBOARD_BACKENDS is not a valid JSON array of backend definitions; ignoring it", {
        error: err instanceof Error ? err.message.slice(0, 300) : String(err),
      });
    }
  }
  if (env.OPENCODE_BASE_URL) {
    envBackends.push({
      id: "opencode",
      def: {
        kind: "opencode",
        label: "OpenCode",
        config: {
          baseUrl: env.OPENCODE_BASE_URL,
          ...(env.OPENCODE_SERVER_PASSWORD ? { password: env.OPENCODE_SERVER_PASSWORD } : {}),
          ...(env.OPENCODE_SERVER_USERNAME ? { username: env.OPENCODE_SERVER_USERNAME } : {}),
          ...(env.OPENCODE_CONTRACT === "v1" || env.OPENCODE_CONTRACT === "api" || env.OPENCODE_CONTRACT === "auto"
            ? { contract: env.OPENCODE_CONTRACT }
            : {}),
        },
      },
    });
  }
  const workspaceRoots = parseWorkspaceRoots(env.SWITCHBOARD_WORKSPACE_ROOTS, workspace);
  return { dataDir, workspace, workspaceRoots, envBackends };
}
