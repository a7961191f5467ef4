import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { BackendDefinition } from "../lib/api";
import { copilotHeadless, type CopilotHeadlessSetup } from "./copilot-env";
import { ZOT_BIN_DIR } from "./fake-zot-stack";
import { createOpencodeHome, FAKE_MODEL_2_ID, type OpencodeHome } from "./opencode-env";
import { type OpencodeServer, startOpencodeServer } from "./opencode-server";
import { launchConsole, type LaunchedConsole, waitForBackendReady } from "./launch-console";
import { startScriptedModel, type ScriptedModel } from "./scripted-model";

export const AGENTS = {
  opencode: { backendId: "opencode", model: FAKE_MODEL_2_ID },
  copilot: { backendId: "copilot", model: "gpt-4.1" },
  zot: { backendId: "zot", model: "zot-model" },
} as const;

export interface MultiAgentStack extends LaunchedConsole {
  model: ScriptedModel;
  /** The workspace root: repositories go inside it, their worktrees beside them. */
  root: string;
  dataDir: string;
  stop(): Promise<void>;
}

export async function startMultiAgentStack(): Promise<MultiAgentStack> {
  const model = await startScriptedModel();
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "switchboard-multi-")));
  const workspace = path.join(root, "workspace");
  fs.mkdirSync(workspace);
  const dataDir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "switchboard-multi-data-")));
  const home: OpencodeHome = await createOpencodeHome({
    modelBaseUrl: model.url,
    config: { permission: { bash: { "*": "allow" }, edit: { "*": "allow" } } },
  });
  const server: OpencodeServer = await startOpencodeServer({ env: home.env, cwd: workspace });
  const cli: CopilotHeadlessSetup = await copilotHeadless({ modelBaseUrl: model.url });
  const defs: BackendDefinition[] = [
    { kind: "opencode", label: "OpenCode", config: { baseUrl: server.url, directory: workspace } },
    { kind: "copilot", label: "Copilot", config: { ...cli.config, cwd: workspace } },
    {
      kind: "zot",
      label: "zot",
      config: {
        command: ["zot", "rpc", "--provider", "openai", "--base-url", model.url, "--model", AGENTS.zot.model],
        env: { OPENAI_API_KEY: "sk-scripted-zot" },
        cwd: workspace,
      },
    },
  ];
  const launched = await launchConsole({
    workspace,
    dataDir,
    backends: defs,
    env: {
      SWITCHBOARD_WORKSPACE_ROOTS: root,
      PATH: `${ZOT_BIN_DIR}${path.delimiter}${process.env.PATH ?? ""}`,
    },
    settled: (url, t) => waitForBackendReady(url, t, 90_000),
  });
  const stack: MultiAgentStack = Object.assign(launched, {
    model,
    root,
    dataDir,
    async stop() {
      await stack.console.stop();
      await server.stop();
      await model.close();
      await cli.cleanup();
      fs.rmSync(root, { recursive: true, force: true });
      fs.rmSync(dataDir, { recursive: true, force: true });
      await home.cleanup();
    },
  });
  return stack;
}
