import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { lookupUser } from "./agent-user";
import { bwrapArgs, sandboxed, sandboxKindOf, sandboxPlan } from "./sandbox";
import { type ProcessExit, ProcessSupervisor } from "./supervisor";

process.env.SWITCHBOARD_LOG ??= "silent";

const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "sb-sandbox-")));
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

describe("the agent sandbox setting", () => {
  it("is bwrap or none; anything else is refused", () => {
    expect(sandboxKindOf({})).toBe("none");
    expect(sandboxKindOf({ SWITCHBOARD_AGENT_SANDBOX: "none" })).toBe("none");
    expect(sandboxKindOf({ SWITCHBOARD_AGENT_SANDBOX: " BWRAP " })).toBe("bwrap");
    expect(() => sandboxKindOf({ SWITCHBOARD_AGENT_SANDBOX: "docker" })).toThrow(/must be "bwrap" or "none"/);
  });

  it("leaves the command alone without it, and never runs an agent unsandboxed when it cannot be had", () => {
    expect(sandboxed("/usr/bin/agent", ["--acp"], { env: {} })).toEqual({
      command: "/usr/bin/agent",
      args: ["--acp"],
      sandbox: "none",
    });
    expect(() =>
      sandboxed("/usr/bin/agent", [], { env: { SWITCHBOARD_AGENT_SANDBOX: "bwrap" }, platform: "darwin" }),
    ).toThrow(/needs Linux/);
  });
});

describe("bubblewrap's command line", () => {
  it("mounts the root read-only, the writable folders over it, and hides the console's files last", () => {
    const argv = bwrapArgs("/usr/bin/agent", ["--acp", "x y"], {
      writable: ["/work/ws/sub", "/home/u", "/work/ws", "/home/u/"],
      hiddenDirs: ["/home/u/.local/share/switchboard"],
      hiddenFiles: ["/etc/switchboard/token"],
      cwd: "/work/ws/sub",
    });
    expect(argv).toEqual([
      "--ro-bind",
      "/",
      "/",
      "--dev",
      "/dev",
      "--proc",
      "/proc",
      "--tmpfs",
      "/tmp",
      "--bind",
      "/home/u",
      "/home/u",
      "--bind",
      "/work/ws",
      "/work/ws",
      "--bind",
      "/work/ws/sub",
      "/work/ws/sub",
      "--tmpfs",
      "/home/u/.local/share/switchboard",
      "--ro-bind",
      "/dev/null",
      "/etc/switchboard/token",
      "--unshare-pid",
      "--unshare-ipc",
      "--die-with-parent",
      "--chdir",
      "/work/ws/sub",
      "--",
      "/usr/bin/agent",
      "--acp",
      "x y",
    ]);
  });

  it("takes the workspace roots, the working folder, HOME and TMPDIR as writable; the data folder and token file as hidden", () => {
    const d = (...p: string[]) => {
      const full = path.join(base, "plan", ...p);
      fs.mkdirSync(full, { recursive: true });
      return full;
    };
    const [ws1, ws2, home, tmp, data, extra] = [d("ws1"), d("ws2"), d("home"), d("tmp"), d("data"), d("extra")];
    const tokenFile = path.join(d("etc"), "token");
    fs.writeFileSync(tokenFile, "t");
    const plan = sandboxPlan({
      env: {
        SWITCHBOARD_WORKSPACE_ROOTS: `${ws1}:${ws2}`,
        SWITCHBOARD_DATA_DIR: data,
        SWITCHBOARD_TOKEN_FILE: tokenFile,
        SWITCHBOARD_AGENT_SANDBOX_WRITABLE: `${extra}:${path.join(base, "missing")}`,
      },
      agentEnv: { HOME: home, TMPDIR: tmp },
      cwd: ws2,
    });
    expect(plan).toEqual({
      writable: [ws1, ws2, ws2, home, tmp, extra],
      hiddenDirs: [data],
      hiddenFiles: [tokenFile],
      cwd: ws2,
    });
  });
});

/* ----------------------------------------------------------- a real agent under bubblewrap */

const bwrapRuns =
  process.platform === "linux" &&
  spawnSync("bwrap", ["--ro-bind", "/", "/", "--dev", "/dev", "--unshare-pid", "--proc", "/proc", "true"]).status === 0;

/** What an agent process could do: read the data folder, the console's environ, the token file; write the workspace. */
const PROBE = `
const fs = require("node:fs");
const tryRead = (p) => { try { return fs.readFileSync(p, "utf8"); } catch (e) { return "ERR " + e.code; } };
const tryWrite = (p) => { try { fs.writeFileSync(p, "written"); return "ok"; } catch (e) { return "ERR " + e.code; } };
process.stdout.write(JSON.stringify({
  data: tryRead(process.env.PROBE_DATA_FILE),
  environ: ((t) => (t.startsWith("ERR ") ? t : "readable"))(tryRead("/proc/" + process.env.PROBE_CONSOLE_PID + "/environ")),
  token: tryRead(process.env.PROBE_TOKEN_FILE),
  workspace: tryWrite(process.env.PROBE_WS_FILE),
  system: tryWrite("/etc/switchboard-sandbox-probe"),
  uid: process.getuid(),
  home: process.env.HOME,
}) + "\\n");
`;

async function probe(sandbox: "bwrap" | "none", settings: Record<string, string> = {}) {
  const root = path.join(base, `real-${sandbox}-${Object.values(settings).join("-")}`);
  const data = path.join(root, "data");
  const ws = path.join(root, "ws");
  const etc = path.join(root, "etc");
  for (const d of [data, ws, etc]) fs.mkdirSync(d, { recursive: true });
  // as the console leaves them: its data folder 0700, its token file 0600; a workspace others may write
  for (const d of [base, root, etc]) fs.chmodSync(d, 0o755);
  fs.chmodSync(data, 0o700);
  fs.chmodSync(ws, 0o777);
  fs.writeFileSync(path.join(data, "switchboard.db"), "secret-store", { mode: 0o600 });
  fs.writeFileSync(path.join(etc, "token"), "secret-token", { mode: 0o600 });
  const out: string[] = [];
  const exits: ProcessExit[] = [];
  const sup = new ProcessSupervisor({
    name: "sandbox probe",
    command: [process.execPath, "-e", PROBE],
    cwd: ws,
    env: {
      PROBE_DATA_FILE: path.join(data, "switchboard.db"),
      PROBE_CONSOLE_PID: String(process.pid),
      PROBE_TOKEN_FILE: path.join(etc, "token"),
      PROBE_WS_FILE: path.join(ws, "out.txt"),
    },
    sandboxEnv: {
      SWITCHBOARD_AGENT_SANDBOX: sandbox,
      SWITCHBOARD_DATA_DIR: data,
      SWITCHBOARD_WORKSPACE_ROOTS: ws,
      SWITCHBOARD_TOKEN_FILE: path.join(etc, "token"),
      ...settings,
    },
    restart: false,
    onSpawn: (p) => {
      void (async () => {
        const dec = new TextDecoder();
        const r = p.stdout.getReader();
        for (let x = await r.read(); !x.done; x = await r.read()) out.push(dec.decode(x.value));
      })();
    },
    onExit: (e) => exits.push(e),
  });
  sup.start();
  for (let i = 0; i < 500 && exits.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
  await new Promise((r) => setTimeout(r, 50));
  expect(exits[0]?.code, sup.logs().join("\n")).toBe(0);
  return {
    result: JSON.parse(out.join("")) as Record<string, string | number>,
    written: fs.existsSync(path.join(ws, "out.txt")),
  };
}

describe("an agent under bubblewrap", () => {
  it("without it, can read the data folder, the console's environ and the token file (what the sandbox is for)", async () => {
    const { result, written } = await probe("none");
    expect(result.data).toBe("secret-store");
    expect(result.token).toBe("secret-token");
    expect(result.environ).toBe("readable");
    expect(written).toBe(true);
  });

  it.runIf(bwrapRuns)(
    "cannot read the data folder, the console's /proc/<pid>/environ nor the token file, but writes its workspace",
    async () => {
      const { result, written } = await probe("bwrap");
      expect(result.data).toBe("ERR ENOENT");
      expect(result.token).toBe("ERR EACCES"); // /dev/null on a nodev mount: it cannot be opened
      expect(result.environ).toBe("ERR ENOENT"); // its own /proc: the console's pid is not there
      expect(result.system).toMatch(/^ERR E(ROFS|ACCES|PERM)/);
      expect(result.workspace).toBe("ok");
      expect(written).toBe(true);
    },
  );

  it.runIf(bwrapRuns)("is stopped with its whole tree: nothing is left running", async () => {
    const marker = `sb-sandbox-marker-${process.pid}`;
    const sup = new ProcessSupervisor({
      name: "sandbox stop",
      command: [process.execPath, "-e", `setInterval(() => {}, 1000); // ${marker}`],
      sandboxEnv: { SWITCHBOARD_AGENT_SANDBOX: "bwrap", SWITCHBOARD_WORKSPACE_ROOTS: base },
      cwd: base,
      restart: false,
      stopGraceMs: 2000,
    });
    const running = () =>
      fs.readdirSync("/proc").filter((p) => {
        if (!/^\d+$/.test(p)) return false;
        try {
          return fs.readFileSync(`/proc/${p}/cmdline`, "utf8").includes(marker);
        } catch {
          return false;
        }
      });
    sup.start();
    for (let i = 0; i < 500 && running().length < 2; i++) await new Promise((r) => setTimeout(r, 20));
    expect(running().length).toBeGreaterThanOrEqual(2); // bwrap and the agent inside it
    await sup.stop();
    for (let i = 0; i < 250 && running().length > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(running()).toEqual([]);
  });
});

/* ------------------------------------------------------------- a real agent as another user */

const nobody = process.platform === "linux" && process.getuid?.() === 0 ? lookupUser("nobody") : undefined;

describe("an agent as another user (SWITCHBOARD_AGENT_USER, the console as root)", () => {
  it.runIf(nobody)(
    "cannot read the data folder, the token file nor the console's environ; writes its workspace",
    async () => {
      const { result, written } = await probe("none", { SWITCHBOARD_AGENT_USER: "nobody" });
      expect(result.uid).toBe(nobody!.uid);
      expect(result.home).toBe(nobody!.home);
      expect(result.data).toBe("ERR EACCES");
      expect(result.token).toBe("ERR EACCES");
      expect(result.environ).toBe("ERR EACCES");
      expect(result.workspace).toBe("ok");
      expect(written).toBe(true);
    },
  );

  it.runIf(nobody && bwrapRuns)("and in the bwrap sandbox as well", async () => {
    const { result, written } = await probe("bwrap", { SWITCHBOARD_AGENT_USER: "nobody" });
    expect(result.uid).toBe(nobody!.uid);
    expect(result.data).toBe("ERR ENOENT");
    expect(result.environ).toBe("ERR ENOENT");
    expect(result.system).toMatch(/^ERR E(ROFS|ACCES|PERM)/);
    expect(result.workspace).toBe("ok");
    expect(written).toBe(true);
  });
});
