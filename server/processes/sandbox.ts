import "server-only";
import fs from "node:fs";
import path from "node:path";
import { parseWorkspaceRoots } from "../auth/workspace";
import { dataDirOf } from "../data-dir";
import { resolveCommand } from "./resolve-command";

/**
 * `SWITCHBOARD_AGENT_SANDBOX=bwrap` (Linux): every agent process the console starts — each stdio
 * agent, the embedded `opencode serve` — runs under bubblewrap (docs/security.md, "What an agent can
 * reach"). It sees the whole filesystem read-only except the workspace roots, its working folder,
 * its home and `TMPDIR` (and what `SWITCHBOARD_AGENT_SANDBOX_WRITABLE` adds), a private `/tmp`, a
 * `/proc` of its own process tree only (so no `/proc/<console pid>/environ`), and an empty folder in
 * place of the console's data folder, the `SWITCHBOARD_TOKEN_FILE` and a systemd
 * `CREDENTIALS_DIRECTORY`. The network is not cut off: agents reach their model providers, and the
 * console reaches the embedded OpenCode over loopback.
 */

export type SandboxKind = "none" | "bwrap";

type Env = Readonly<Record<string, string | undefined>>;

/** What the sandbox of one agent process is made of (all paths absolute). */
export interface BwrapPlan {
  /** Bound read-write at the same place. */
  writable: string[];
  /** Folders replaced by an empty tmpfs (mounted last: nothing bound inside them shows). */
  hiddenDirs: string[];
  /** Files replaced by `/dev/null` (bound without device access: opening them fails with EACCES). */
  hiddenFiles: string[];
  /** The working folder inside the sandbox. */
  cwd?: string;
}

/** `SWITCHBOARD_AGENT_SANDBOX`: `bwrap`, or none (unset, empty, `none`, `off`); anything else is an error. */
export function sandboxKindOf(env: Env = process.env): SandboxKind {
  const v = (env.SWITCHBOARD_AGENT_SANDBOX ?? "").trim().toLowerCase();
  if (v === "" || v === "none" || v === "off") return "none";
  if (v === "bwrap" || v === "bubblewrap") return "bwrap";
  throw new Error(`SWITCHBOARD_AGENT_SANDBOX must be "bwrap" or "none", not ${JSON.stringify(v.slice(0, 40))}`);
}

/**
 * bubblewrap's arguments for running `command args` under `plan` (pure). Mounts are applied in
 * order: the root read-only, fresh `/dev`, `/proc` and `/tmp`, the writable folders (parents before
 * what is inside them), then the hidden folders and files over everything.
 */
export function bwrapArgs(command: string, args: readonly string[], plan: BwrapPlan): string[] {
  const out = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"];
  const byDepth = (a: string, b: string) => a.split("/").length - b.split("/").length || a.localeCompare(b);
  for (const w of unique(plan.writable).sort(byDepth)) out.push("--bind", w, w);
  for (const d of unique(plan.hiddenDirs).sort(byDepth)) out.push("--tmpfs", d);
  for (const f of unique(plan.hiddenFiles)) out.push("--ro-bind", "/dev/null", f);
  out.push("--unshare-pid", "--unshare-ipc", "--die-with-parent");
  if (plan.cwd) out.push("--chdir", plan.cwd);
  out.push("--", command, ...args);
  return out;
}

function unique(list: readonly string[]): string[] {
  return [...new Set(list.map((p) => path.resolve(p)))].filter((p) => p !== "/");
}

function existing(p: string | undefined, kind: "dir" | "file"): string | undefined {
  if (!p || !path.isAbsolute(p)) return undefined;
  try {
    const real = fs.realpathSync(/*turbopackIgnore: true*/ p);
    const st = fs.statSync(/*turbopackIgnore: true*/ real);
    return (kind === "dir" ? st.isDirectory() : st.isFile()) ? real : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The plan for an agent started in `cwd` with `agentEnv`, from the console's settings in `env`:
 * writable are the workspace roots (`SWITCHBOARD_WORKSPACE_ROOTS`, else the workspace), `cwd`, the
 * agent's `HOME` and `TMPDIR`, and `SWITCHBOARD_AGENT_SANDBOX_WRITABLE` (colon-separated); hidden are
 * the console's data folder, `SWITCHBOARD_TOKEN_FILE` and `CREDENTIALS_DIRECTORY`. Paths that do not
 * exist are left out (bubblewrap cannot bind them).
 */
export function sandboxPlan(opts: { env?: Env; agentEnv?: Env; cwd?: string | undefined }): BwrapPlan {
  const env = opts.env ?? process.env;
  const agentEnv = opts.agentEnv ?? {};
  const workspace = path.resolve(/*turbopackIgnore: true*/ env.SWITCHBOARD_WORKSPACE ?? process.cwd());
  const writable = [
    ...parseWorkspaceRoots(env.SWITCHBOARD_WORKSPACE_ROOTS, workspace),
    opts.cwd,
    agentEnv.HOME,
    agentEnv.TMPDIR,
    ...(env.SWITCHBOARD_AGENT_SANDBOX_WRITABLE ?? "").split(":").map((s) => s.trim()),
  ]
    .map((p) => existing(p, "dir"))
    .filter((p): p is string => p !== undefined);
  const hiddenDirs = [dataDirOf(env), env.CREDENTIALS_DIRECTORY]
    .map((p) => existing(p, "dir"))
    .filter((p): p is string => p !== undefined);
  const tokenFile = existing(env.SWITCHBOARD_TOKEN_FILE?.trim(), "file");
  const cwd = opts.cwd ? path.resolve(opts.cwd) : undefined;
  return { writable, hiddenDirs, hiddenFiles: tokenFile ? [tokenFile] : [], ...(cwd ? { cwd } : {}) };
}

/**
 * What to spawn for `command args` (already resolved) under the console's sandbox setting: the same,
 * or bubblewrap with the arguments above. Throws, with a sentence, when a sandbox is asked for and
 * cannot be had (not Linux, no `bwrap` on PATH): an agent never runs unsandboxed by surprise.
 */
export function sandboxed(
  command: string,
  args: readonly string[],
  opts: { env?: Env; agentEnv?: Env; cwd?: string | undefined; platform?: NodeJS.Platform },
): { command: string; args: string[]; sandbox: SandboxKind } {
  const env = opts.env ?? process.env;
  const kind = sandboxKindOf(env);
  if (kind === "none") return { command, args: [...args], sandbox: kind };
  if ((opts.platform ?? process.platform) !== "linux")
    throw new Error("SWITCHBOARD_AGENT_SANDBOX=bwrap needs Linux (bubblewrap)");
  const bwrap = resolveCommand("bwrap", {
    ...(opts.agentEnv?.PATH ? { pathEnv: opts.agentEnv.PATH } : {}),
    extraDirs: ["/usr/bin", "/bin", "/usr/local/bin"],
  });
  if (!bwrap)
    throw new Error("SWITCHBOARD_AGENT_SANDBOX=bwrap, but bwrap is not installed (e.g. apt-get install bubblewrap)");
  return { command: bwrap, args: bwrapArgs(command, args, sandboxPlan(opts)), sandbox: kind };
}
