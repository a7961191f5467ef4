/**
 * `npm run demo`: the console with its embedded OpenCode driven by the project's scripted model,
 * fully offline. Try "run bash", "think about it", "write a file", "make a todo list" or "slow".
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { createOpencodeHome, createWorkspace } from "../testkit/opencode-env";
import { startScriptedModel } from "../testkit/scripted-model";

async function main() {
  const model = await startScriptedModel({ port: Number(process.env.SCRIPTED_MODEL_PORT ?? 0) });
  const oc = await createOpencodeHome({ modelBaseUrl: model.url });
  const workspace = process.env.SWITCHBOARD_WORKSPACE ?? (await createWorkspace());
  const dataDir = process.env.SWITCHBOARD_DATA_DIR ?? path.join(oc.home, "switchboard-data");
  fs.mkdirSync(dataDir, { recursive: true });
  console.log(`[demo] scripted model at ${model.url}`);
  console.log(`[demo] workspace ${workspace}`);
  const child = spawn(process.execPath, [path.join(import.meta.dirname, "start.mjs")], {
    stdio: "inherit",
    env: { ...process.env, ...oc.env, SWITCHBOARD_WORKSPACE: workspace, SWITCHBOARD_DATA_DIR: dataDir },
  });
  const shutdown = async () => {
    child.kill("SIGTERM");
    await model.close();
    await oc.cleanup();
  };
  process.on("SIGINT", () => void shutdown());
  process.on("SIGTERM", () => void shutdown());
  child.on("exit", (code) => {
    void model.close().finally(() => process.exit(code ?? 0));
  });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
