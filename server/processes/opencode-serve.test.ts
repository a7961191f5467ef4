/**
 * The embedded `opencode serve` supervisor against a stand-in binary: a first start that fails is
 * tried again with backoff (the console does not stay "down" for good), and stop() ends the child.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { EmbeddedOpencode } from "./opencode-serve";

process.env.SWITCHBOARD_LOG ??= "silent";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sb-oc-serve-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/**
 * A stand-in for `opencode serve --port N`: the first run exits at once (as a broken config or a
 * crashed start would) or hangs without a word; later runs print the listening line and answer
 * /global/health.
 */
function standIn(first: "exit" | "hang"): { bin: string; runs: () => number; firstPid: () => number } {
  const sub = fs.mkdtempSync(path.join(dir, "bin-"));
  const counter = path.join(sub, "runs");
  const pidFile = path.join(sub, "first.pid");
  const bin = path.join(sub, "opencode");
  fs.writeFileSync(
    bin,
    `#!${process.execPath}
const fs = require("node:fs");
const http = require("node:http");
const runs = (fs.existsSync(${JSON.stringify(counter)}) ? Number(fs.readFileSync(${JSON.stringify(counter)}, "utf8")) : 0) + 1;
fs.writeFileSync(${JSON.stringify(counter)}, String(runs));
if (runs === 1) {
  fs.writeFileSync(${JSON.stringify(pidFile)}, String(process.pid));
  if (${JSON.stringify(first)} === "exit") { process.stderr.write("boom: first start fails\\n"); process.exit(7); }
  setInterval(() => {}, 1000);
  return;
}
const port = Number(process.argv[process.argv.indexOf("--port") + 1]);
http.createServer((req, res) => { res.writeHead(req.url === "/global/health" ? 200 : 404, { "content-type": "application/json" }); res.end('{"healthy":true}'); })
  .listen(port, "127.0.0.1", () => console.log("opencode server listening on http://127.0.0.1:" + port));
`,
    { mode: 0o755 },
  );
  return {
    bin,
    runs: () => Number(fs.readFileSync(counter, "utf8")),
    firstPid: () => Number(fs.readFileSync(pidFile, "utf8")),
  };
}

describe("EmbeddedOpencode", () => {
  it("tries a failed first start again and becomes ready; stop ends it", async () => {
    const { bin, runs } = standIn("exit");
    const states: string[] = [];
    const oc = new EmbeddedOpencode({ cwd: dir, bin, onState: (s) => states.push(s) });
    await expect(oc.start()).rejects.toThrow(/exited with code 7 before listening/);
    const url = await oc.whenReady();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(runs()).toBe(2);
    expect(states).toContain("down");
    expect(states.at(-1)).toBe("ready");
    expect((await fetch(`${url}/global/health`)).status).toBe(200);
    const pid = oc.pid!;
    await oc.stop();
    expect(() => process.kill(pid, 0)).toThrow();
  });

  it("kills a start that hangs without a listening line, and tries again", async () => {
    const { bin, runs, firstPid } = standIn("hang");
    const oc = new EmbeddedOpencode({ cwd: dir, bin, timeouts: { listenMs: 600 } });
    await expect(oc.start()).rejects.toThrow(/did not print its listening line/);
    const url = await oc.whenReady();
    expect(runs()).toBe(2);
    expect((await fetch(`${url}/global/health`)).status).toBe(200);
    // The hung first process is gone, not left behind.
    await expect
      .poll(() => {
        try {
          process.kill(firstPid(), 0);
          return "alive";
        } catch {
          return "gone";
        }
      })
      .toBe("gone");
    await oc.stop();
  });
});
