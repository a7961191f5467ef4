import "server-only";
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { log } from "../log";
import { freePort, portIsFree } from "./free-port";

export interface EmbeddedOpencodeOptions {
  cwd: string;
  bin?: string;
  env?: NodeJS.ProcessEnv;
  onState?: (state: "starting" | "ready" | "down", detail?: string) => void;
  /** How long a start may take to print its listening line, and then to answer health (30 s, 20 s). */
  timeouts?: { listenMs?: number; healthMs?: number };
}

/** Children are killed when the console process exits, whatever the reason: no orphans. */
const liveChildren = new Set<ChildProcess>();
let exitHooked = false;
function track(child: ChildProcess) {
  liveChildren.add(child);
  child.once("exit", () => liveChildren.delete(child));
  if (!exitHooked) {
    exitHooked = true;
    process.once("exit", () => {
      for (const c of liveChildren) c.kill("SIGTERM");
    });
  }
}

const LISTEN_RE = /opencode server listening on (http:\/\/[^\s]+)/;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function opencodeBinary(): string {
  const fromEnv = process.env.SWITCHBOARD_OPENCODE_BIN;
  if (fromEnv) return fromEnv;
  return path.join(process.cwd(), "node_modules", ".bin", "opencode");
}

/**
 * Supervises the console's own `opencode serve` (used when no backend is configured): explicit free
 * port, waits for the "listening" line and a health probe with short timeouts (a request in the
 * instant after bind hangs forever), restarts it with backoff when it dies, stops it with the console.
 */
export class EmbeddedOpencode {
  readonly username = "opencode";
  /** A random password: the embedded server answers only to this console. */
  readonly password = randomBytes(18).toString("base64url");
  private child: ChildProcess | undefined;
  private port = 0;
  private stopping = false;
  private restarts = 0;
  private stderrTail: string[] = [];
  private readyWaiters: ((url: string) => void)[] = [];
  url: string | undefined;

  constructor(private opts: EmbeddedOpencodeOptions) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /**
   * Starts the server and resolves with its base URL once it answers health probes. When the first
   * start fails (no listening line, no health answer, an early exit) it rejects, and the server is
   * tried again with backoff: `whenReady()` resolves when one of those tries succeeds.
   */
  async start(): Promise<string> {
    this.stopping = false;
    try {
      await this.spawnOnce();
    } catch (err) {
      this.retryAfterFailure(err);
      throw err;
    }
    return this.url!;
  }

  /** Resolves with the URL as soon as the server is (again) ready. */
  whenReady(): Promise<string> {
    if (this.url) return Promise.resolve(this.url);
    return new Promise((r) => this.readyWaiters.push(r));
  }

  async stop(): Promise<void> {
    this.stopping = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    const c = this.child;
    this.child = undefined;
    if (!c || c.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        c.kill("SIGKILL");
        resolve();
      }, 3000);
      c.once("exit", () => {
        clearTimeout(t);
        resolve();
      });
      c.kill("SIGTERM");
    });
  }

  private async spawnOnce(): Promise<void> {
    const bin = this.opts.bin ?? opencodeBinary();
    if (!fs.existsSync(bin)) throw new Error(`opencode binary not found at ${bin} (run npm install)`);
    if (!this.port || !(await portIsFree(this.port))) this.port = await freePort();
    this.opts.onState?.("starting");
    this.url = undefined;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ...this.opts.env,
      OPENCODE_SERVER_USERNAME: this.username,
      OPENCODE_SERVER_PASSWORD: this.password,
    };
    const child = spawn(bin, ["serve", "--port", String(this.port), "--hostname", "127.0.0.1", "--print-logs"], {
      cwd: this.opts.cwd,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    this.child = child;
    track(child);
    this.stderrTail = [];
    child.stderr?.setEncoding("utf8");
    child.stderr?.on("data", (d: string) => {
      for (const line of d.split("\n")) if (line.trim()) this.stderrTail.push(line);
      if (this.stderrTail.length > 50) this.stderrTail.splice(0, this.stderrTail.length - 50);
    });
    const listening = new Promise<string>((resolve, reject) => {
      let buf = "";
      child.stdout?.setEncoding("utf8");
      child.stdout?.on("data", (d: string) => {
        buf += d;
        const m = LISTEN_RE.exec(buf);
        if (m) resolve(m[1]!);
        if (buf.length > 10_000) buf = buf.slice(-2000);
      });
      child.once("exit", (code) => reject(new Error(`opencode exited with code ${code} before listening: ${this.stderrTail.slice(-5).join(" | ")}`)));
      const listenMs = this.opts.timeouts?.listenMs ?? 30_000;
      setTimeout(() => reject(new Error(`opencode did not print its listening line within ${listenMs / 1000} s`)), listenMs).unref();
    });
    child.once("exit", (code, signal) => this.onExit(child, code, signal));
    const url = await listening;
    await this.probe(url);
    this.url = url.replace(/\/$/, "");
    this.restarts = 0;
    log.info("embedded opencode ready", { url: this.url, pid: child.pid });
    this.opts.onState?.("ready");
    for (const w of this.readyWaiters.splice(0)) w(this.url);
  }

  private async probe(url: string): Promise<void> {
    const auth = "Basic " + Buffer.from(`${this.username}:${this.password}`).toString("base64");
    const healthMs = this.opts.timeouts?.healthMs ?? 20_000;
    const deadline = Date.now() + healthMs;
    while (Date.now() < deadline) {
      try {
        const r = await fetch(`${url}/global/health`, { headers: { authorization: auth }, signal: AbortSignal.timeout(1000) });
        if (r.ok) return;
      } catch {
        // not ready yet
      }
      await sleep(150);
    }
    throw new Error(`opencode did not answer its health probe within ${healthMs / 1000} s`);
  }

  private restartTimer: ReturnType<typeof setTimeout> | undefined;

  private scheduleRestart() {
    if (this.restartTimer || this.stopping) return;
    const delay = Math.min(30_000, 500 * 2 ** this.restarts++);
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined;
      if (this.stopping) return;
      this.spawnOnce().catch((err: unknown) => this.retryAfterFailure(err));
    }, delay);
    this.restartTimer.unref?.();
  }

  /** A start that failed: the half-started child goes, and another try is scheduled. */
  private retryAfterFailure(err: unknown) {
    log.error("embedded opencode did not start; trying again", { error: err instanceof Error ? err.message : String(err) });
    const c = this.child;
    this.child = undefined;
    c?.kill("SIGKILL");
    this.opts.onState?.("down", err instanceof Error ? err.message : String(err));
    this.scheduleRestart();
  }

  private onExit(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null) {
    if (this.child !== child) return;
    this.child = undefined;
    this.url = undefined;
    if (this.stopping) return;
    const detail = `opencode exited (${signal ?? `code ${code}`})`;
    log.warn("embedded opencode died; restarting", { code, signal, stderr: this.stderrTail.slice(-3) });
    this.opts.onState?.("down", detail);
    this.scheduleRestart();
  }
}
