/**
 * The real backends the conformance suite runs against, each driven by its own scripted model:
 * `opencode serve` through the OpenCode adapter, the test A2A server (opencode-a2a bridge, plain
 * agent) through the A2A adapter, `copilot --acp` and `opencode acp` through the ACP adapter,
 * Copilot's headless server, and the zot and Opal fakes. The suites are split over several test
 * files (conformance-*.test.ts) so that Vitest runs them side by side.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { AgentSetup } from "../../testkit/acp-env";
import { VENDOR_AGENTS } from "../../testkit/acp-vendor-stack";
import { copilotHeadless } from "../../testkit/copilot-env";
import { createOpencodeHome, createWorkspace } from "../../testkit/opencode-env";
import { startOpencodeServer } from "../../testkit/opencode-server";
import { startOpencodeApiProxy } from "../../testkit/opencode-api-proxy";
import { opencodeBridge, type OpencodeRelease } from "../../testkit/a2a-opencode-bridge";
import { plainAgent } from "../../testkit/a2a-plain-agent";
import { startA2aServer } from "../../testkit/a2a-server";
import { type ScriptedModel, type ScriptedTurn, startScriptedModel } from "../../testkit/scripted-model";
import { SqliteStore } from "../store/sqlite-store";
import { A2aAdapter } from "./a2a/adapter";
import { AcpAdapter } from "./acp/adapter";
import { CopilotAdapter } from "./copilot/adapter";
import type { ConformanceTarget } from "./conformance-harness";
import { OpalAdapter } from "./opal/adapter";
import { OpencodeAdapter } from "./opencode/adapter";
import { ZotAdapter } from "./zot/adapter";
import { until } from "@/testkit/until";

function modelControls(model: ScriptedModel) {
  return {
    enqueue: (...t: Parameters<ScriptedModel["enqueue"]>) => model.enqueue(...t),
    resetModel: () => model.reset(),
  };
}

/** OpenCode's `question` tool call asking `q` (its options described), as the model sends it. */
function opencodeQuestion(q: { question: string; options: string[] }): ScriptedTurn {
  return {
    toolCalls: [
      {
        name: "question",
        arguments: {
          questions: [
            {
              question: q.question,
              header: "Question",
              options: q.options.map((label) => ({ label, description: `Choose ${label}` })),
            },
          ],
        },
      },
    ],
  };
}

/**
 * The OpenCode adapter against the real `opencode serve`, twice: through its V1 routes, and
 * through a proxy that passes only `/api/*` and `/doc` (how an OpenCode 2 server looks).
 */
export function opencodeTarget(contract: "v1" | "api") {
  return async (): Promise<ConformanceTarget> => {
    const model = await startScriptedModel();
    // Bash runs unasked except the permission check's marker commands, so OpenCode asks like an ACP agent.
    const home = await createOpencodeHome({
      modelBaseUrl: model.url,
      config: { permission: { bash: { "*": "allow", "echo *marker": "ask" } } },
      configFile: contract === "api",
    });
    const workspace = await createWorkspace();
    let server = await startOpencodeServer({ env: home.env, cwd: workspace });
    const proxy = contract === "api" ? await startOpencodeApiProxy(() => server.url) : undefined;
    const target: ConformanceTarget = {
      ...modelControls(model),
      asksPermission: true,
      stopsInEveryState: true,
      questionTurn: opencodeQuestion,
      async killBackend() {
        // OpenCode runs outside the console here: it is killed, then started again on its port.
        const port = server.port;
        server.kill("SIGKILL");
        await server.stop();
        server = await startOpencodeServer({ env: home.env, cwd: workspace, port });
      },
      async open(sink) {
        // Through the proxy the adapter detects /api by itself (the setting stays "auto").
        const a = new OpencodeAdapter(
          { id: "oc", label: "OpenCode", baseUrl: proxy?.url ?? server.url, directory: workspace },
          sink,
        );
        await a.start();
        for (let i = 0; i < 200 && a.info().status !== "ready"; i++) await new Promise((r) => setTimeout(r, 50));
        if (contract === "api" && !a.info().protocol?.startsWith("/api"))
          throw new Error(`expected the /api contract, got ${a.info().protocol}`);
        return a;
      },
      async close() {
        await proxy?.close();
        await server.stop();
        await model.close();
        await home.cleanup();
        fs.rmSync(workspace, { recursive: true, force: true });
      },
    };
    return target;
  };
}

export function acpTarget(makeAgent: (modelBaseUrl: string) => Promise<AgentSetup>) {
  return async (): Promise<ConformanceTarget> => {
    const model = await startScriptedModel();
    const agent = await makeAgent(model.url);
    const workspace = await createWorkspace();
    const store = new SqliteStore(path.join(agent.home, "switchboard.db"));
    return {
      ...modelControls(model),
      asksPermission: true,
      // The console supervises the agent: it restarts it by itself.
      async killBackend(adapter) {
        (adapter as AcpAdapter).killProcess("SIGKILL");
      },
      async open(sink) {
        const a = new AcpAdapter(
          { id: "acp", label: "ACP agent", command: agent.command, env: agent.env, cwd: workspace, workspace, store },
          sink,
        );
        await a.start();
        await a.ready(60_000);
        return a;
      },
      async close() {
        store.close();
        await model.close();
        await agent.cleanup();
        fs.rmSync(workspace, { recursive: true, force: true });
      },
    };
  };
}

/**
 * The vendors' ACP adapters, codex-acp 2.6.0 and claude-agent-acp 0.101.0, against the scripted model
 * (OpenAI Responses, Anthropic Messages), spoken to in ACP `version`: 2 as negotiated, or 1 with
 * `acpVersion: 1` (both serve both). Codex gets its key as Settings gives it (kept in the store for
 * the next instance); Claude Code its ANTHROPIC_API_KEY in the environment.
 */
export function acpVendorTarget(which: "codex" | "claude-code", version: 1 | 2) {
  return async (): Promise<ConformanceTarget> => {
    const model = await startScriptedModel();
    const vendor = VENDOR_AGENTS.find((a) => a.id === which)!;
    const agent = await vendor.setup({ modelUrl: model.url });
    const env = which === "codex" ? agent.env : { ...agent.env, ANTHROPIC_API_KEY: "sk-conformance" };
    const workspace = await createWorkspace();
    const store = new SqliteStore(path.join(agent.home, "switchboard.db"));
    return {
      ...modelControls(model),
      asksPermission: true,
      // each model's own shell tool (testkit/acp-vendor-stack.ts); Claude Code runs read-only commands
      // such as `echo` without asking, a write makes it ask
      shell: (command, description) =>
        vendor.shell(which === "claude-code" ? `mkdir -p out && ${command}` : command, description),
      async killBackend(adapter) {
        (adapter as AcpAdapter).killProcess("SIGKILL");
      },
      async open(sink) {
        const a = new AcpAdapter(
          {
            id: "acp",
            label: vendor.label,
            command: agent.command,
            env,
            cwd: workspace,
            workspace,
            store,
            ...(version === 1 ? { acpVersion: 1 as const } : {}),
          },
          sink,
        );
        await a.start();
        await until(() => ["ready", "auth-required"].includes(a.info().status), "the agent's handshake", 60_000);
        if (a.info().status === "auth-required") {
          // the agent restarts with the key: wait for the new process, not the one going away
          await a.setCredentials("api-key", { apiKey: "sk-conformance" });
          await until(() => (a.info().process?.restarts ?? 0) >= 1 && a.info().status === "ready", "ready", 60_000);
        }
        await a.ready(60_000);
        if (!a.info().protocol?.startsWith(`ACP v${version}`))
          throw new Error(`expected ACP v${version}, the agent agreed ${a.info().protocol}`);
        return a;
      },
      async close() {
        store.close();
        await model.close();
        await agent.cleanup();
        fs.rmSync(workspace, { recursive: true, force: true });
      },
    };
  };
}

/**
 * The A2A adapter against the test A2A server (testkit/a2a-server.ts): the opencode-a2a bridge to
 * a real `opencode serve`, or the plain agent; both driven by the scripted model. The backend is
 * "killed" by restarting the A2A server (and, for the bridge, OpenCode with it).
 */
export function a2aTarget(mode: "opencode" | "plain", version: "1.0" | "0.3" = "1.0", release?: OpencodeRelease) {
  return async (): Promise<ConformanceTarget> => {
    const model = await startScriptedModel();
    const workspace = await createWorkspace();
    const token = `conformance-${mode}-token`;
    const data = fs.mkdtempSync(path.join(os.tmpdir(), "sb-a2a-conformance-"));
    const store = new SqliteStore(path.join(data, "switchboard.db"));
    const home =
      mode === "opencode"
        ? await createOpencodeHome({
            modelBaseUrl: model.url,
            config: { permission: { bash: { "*": "allow", "echo *marker": "ask" } } },
          })
        : undefined;
    let oc = home ? await startOpencodeServer({ env: home.env, cwd: workspace }) : undefined;
    const agent = oc
      ? opencodeBridge({ opencodeUrl: oc.url, directory: workspace, version, ...(release ? { release } : {}) })
      : plainAgent({ modelUrl: model.url });
    const server = await startA2aServer({ agent, token, version });
    return {
      ...modelControls(model),
      asksPermission: mode === "opencode",
      toolCalls: mode === "opencode",
      ...(mode === "opencode"
        ? {
            questionTurn: opencodeQuestion,
          }
        : {}),
      async killBackend() {
        if (oc && home) {
          const port = oc.port;
          oc.kill("SIGKILL");
          await oc.stop();
          oc = await startOpencodeServer({ env: home.env, cwd: workspace, port });
        }
        await server.restart();
      },
      async open(sink) {
        const a = new A2aAdapter(
          {
            id: "a2a",
            label: mode === "opencode" ? "OpenCode A2A" : "Plain agent",
            url: server.url,
            token,
            store,
            healthMs: 1000,
          },
          sink,
        );
        await a.start();
        for (let i = 0; i < 400 && a.info().status !== "ready"; i++) await new Promise((r) => setTimeout(r, 50));
        return a;
      },
      async close() {
        await server.stop();
        if ("close" in agent) (agent as { close(): void }).close();
        await oc?.stop();
        await home?.cleanup();
        store.close();
        await model.close();
        fs.rmSync(workspace, { recursive: true, force: true });
        fs.rmSync(data, { recursive: true, force: true });
      },
    };
  };
}

export async function copilotHeadlessTarget(): Promise<ConformanceTarget> {
  const model = await startScriptedModel();
  const cli = await copilotHeadless({ modelBaseUrl: model.url });
  const workspace = await createWorkspace();
  return {
    ...modelControls(model),
    asksPermission: true,
    questionTurn: (q) => ({
      toolCalls: [{ name: "ask_user", arguments: { question: q.question, choices: q.options, allow_freeform: true } }],
    }),
    async killBackend(adapter) {
      (adapter as CopilotAdapter).killProcess("SIGKILL");
    },
    async open(sink) {
      const a = new CopilotAdapter(
        { id: "copilot", label: "Copilot headless", ...cli.config, cwd: workspace, workspace },
        sink,
      );
      await a.start();
      await a.ready(60_000);
      return a;
    },
    async close() {
      await model.close();
      await cli.cleanup();
      fs.rmSync(workspace, { recursive: true, force: true });
    },
  };
}

export const zotTarget = (program: "zot" | "terva") => async (): Promise<ConformanceTarget> => {
  const model = await startScriptedModel();
  const workspace = await createWorkspace();
  const dataDir = fs.mkdtempSync(path.join(workspace, ".switchboard-"));
  const store = new SqliteStore(path.join(dataDir, "switchboard.db"));
  const zot = path.resolve(import.meta.dirname, `../../testkit/fake-zot-bin/${program}`);
  return {
    ...modelControls(model),
    // zot runs its tools unattended: it never asks.
    asksPermission: false,
    async killBackend(adapter) {
      (adapter as ZotAdapter).killProcesses("SIGKILL");
    },
    async open(sink) {
      const command = [zot, "rpc", "--provider", "openai", "--base-url", model.url, "--model", "fake-model"];
      const a = new ZotAdapter(
        { id: "zot", label: "zot", command, env: { OPENAI_API_KEY: "sk-scripted" }, cwd: workspace, workspace, store },
        sink,
      );
      await a.start();
      await a.ready(60_000);
      return a;
    },
    async close() {
      store.close();
      await model.close();
      fs.rmSync(workspace, { recursive: true, force: true });
    },
  };
};

export async function opalTarget(): Promise<ConformanceTarget> {
  const model = await startScriptedModel();
  const workspace = await createWorkspace();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "sb-opal-conformance-"));
  fs.writeFileSync(path.join(dataDir, "auth.json"), "{}");
  const store = new SqliteStore(path.join(dataDir, "switchboard.db"));
  const opal = path.resolve(import.meta.dirname, "../../testkit/fake-opal-bin/opal-server");
  return {
    ...modelControls(model),
    // Opal's tools run unasked on main (client/confirm is declared, not sent).
    asksPermission: false,
    questionTurn: (q) => ({
      toolCalls: [{ name: "ask_user", arguments: { question: q.question, choices: q.options } }],
    }),
    async killBackend(adapter) {
      (adapter as OpalAdapter).killProcess("SIGKILL");
    },
    async open(sink) {
      const a = new OpalAdapter(
        {
          id: "opal",
          label: "Opal",
          command: [opal],
          env: { OPAL_HOME: dataDir, OPAL_MODEL_URL: model.url },
          cwd: workspace,
          workspace,
          store,
          restart: { initialMs: 100, maxMs: 1000 },
        },
        sink,
      );
      await a.start();
      await a.ready(60_000);
      return a;
    },
    async close() {
      store.close();
      await model.close();
      fs.rmSync(workspace, { recursive: true, force: true });
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
