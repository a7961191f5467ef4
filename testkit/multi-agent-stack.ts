/**
 * Three different agents behind one console, all on one scripted model (issue 47's compare test):
 * a real `opencode serve`, the real Copilot CLI (`copilot --headless --stdio`, testkit/copilot-env.ts)
 * and the zot fake (testkit/fake-zot.ts), configured through `SWITCHBOARD_BACKENDS`. Each asks the
 * model for a model of its own (OpenCode `fake-model-2`, Copilot `gpt-4.1`, zot `zot-model`), so a
 * scripted turn can be meant for one of them (`ScriptedTurn.model`) while they run at once. The
 * workspace root is a folder above the stack's repositories, so sessions can get worktrees.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { BackendDefinition } from "../lib/api";
import { startConsole, type ConsoleProcess } from "./console";
import { copilotHeadless, type CopilotHeadlessSetup } from "./copilot-env";
import { ZOT_BIN_DIR } from "./fake-zot-stack";
import { createOpencodeHome, FAKE_MODEL_2_ID, type OpencodeHome } from "./opencode-env";
import { type OpencodeServer, startOpencodeServer } from "./opencode-server";
import { loginCookie, waitForBackendReady } from "./opencode-stack";
import { startScriptedModel, type ScriptedModel } from "./scripted-model";

export const AGENTS = {
  opencode: { backendId: "opencode", model: FAKE_MODEL_2_ID },
  copilot: { backendId: "copilot", model: "gpt-4.1" },
  zot: { backendId: "zot", model: "zot-model" },
} as const;

export interface MultiAgentStack {
  model: ScriptedModel;
  /** The workspace root: repositories go inside it, their worktrees beside them. */
  root: string;
  dataDir: string;
  console: ConsoleProcess;
  url: string;
  token: string;
  sessionCookie: string;
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
  const token = `e2e-${randomBytes(24).toString("base64url")}`;
  const env: Record<string, string> = {
    SWITCHBOARD_TOKEN: token,
    SWITCHBOARD_WORKSPACE: workspace,
    SWITCHBOARD_WORKSPACE_ROOTS: root,
    SWITCHBOARD_DATA_DIR: dataDir,
    SWITCHBOARD_LOG: "info",
    SWITCHBOARD_BACKENDS: JSON.stringify(defs),
    PATH: `${ZOT_BIN_DIR}${path.delimiter}${process.env.PATH ?? ""}`,
  };
  const consoleProcess = await startConsole({ env });
  const stack: MultiAgentStack = {
    model,
    root,
    dataDir,
    console: consoleProcess,
    url: consoleProcess.url,
    token,
    sessionCookie: "",
    async stop() {
      await stack.console.stop();
      await server.stop();
      await model.close();
      await cli.cleanup();
      fs.rmSync(root, { recursive: true, force: true });
      fs.rmSync(dataDir, { recursive: true, force: true });
      await home.cleanup();
    },
  };
  await waitForBackendReady(stack.url, token, 90_000);
  stack.sessionCookie = await loginCookie(stack.url, token);
  return stack;
}
