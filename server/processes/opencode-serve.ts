import "server-only";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { log } from "../log";
import { CONSOLE_CREDENTIAL_NAMES } from "./agent-env";
import { freePort, portIsFree } from "./free-port";
import { ProcessSupervisor, type ProcessExit, type SupervisedProcess } from "./supervisor";

export interface EmbeddedOpencodeOptions {
  cwd: string;
  bin?: string;
  /** Its own variables (a configured backend's `env` and `passEnv`), over `embeddedOpencodeEnv()`. */
  env?: Readonly<Record<string, string | undefined>>;
  onState?: (state: "starting" | "ready" | "down", detail?: string) => void;
  /** How long a start may take to print its listening line, and then to answer health (30 s, 20 s). */
  timeouts?: { listenMs?: number; healthMs?: number };
}

const LISTEN_RE = /opencode server listening on (http:\/\/[^\s]+)/;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function opencodeBinary(): string {
  const fromEnv = process.env.SWITCHBOARD_OPENCODE_BIN;
  if (fromEnv) return fromEnv;
  return path.join(process.cwd(), "node_modules", ".bin", "opencode");
}

/**
 * OpenCode's own settings from the console's environment (`OPENCODE_CONFIG`, `OPENCODE_CONFIG_CONTENT`,
 * `OPENCODE_DISABLE_*` …): the embedded server is the console's own OpenCode, configured the way
 * the user configures OpenCode. Not the credentials of the server `OPENCODE_BASE_URL` names, nor
 * that URL. Everything else comes from the agent allow-list (./agent-env.ts).
 */
export function embeddedOpencodeEnv(
  parent: Readonly<Record<string, string | undefined>> = process.env,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(parent)) {
    if (
      v === undefined ||
      !k.startsWith("OPENCODE_") ||
      k === "OPENCODE_BASE_URL" ||
      CONSOLE_CREDENTIAL_NAMES.includes(k)
    )
      continue;
    out[k] = v;
  }
  return out;
}

/**
 * The console's own `opencode serve` (used when no backend is configured), run on the
 * `ProcessSupervisor` (./supervisor.ts: process group, restart with backoff, SIGTERM → SIGKILL, no
 * orphans): an explicit free port, ready once it printed its "listening" line and answers a health
 * probe with short timeouts (a request in the instant after bind hangs forever). A start that exits,
 * hangs without the line or never answers health is killed and tried again with backoff.
 */
export class EmbeddedOpencode {
  readonly username = "opencode";
  /** A random password: the embedded server answers only to this console. */
  readonly password = randomBytes(18).toString("base64url");
  private sup: ProcessSupervisor;
  private port = 0;
  private gen = 0;
  /** Generations already reported as failed (killed by us): their exit is not reported again. */
  private failed = new Set<number>();
  private firstStart: { resolve: (url: string) => void; reject: (err: Error) => void } | undefined;
  private readyWaiters: ((url: string) => void)[] = [];
  url: string | undefined;

  constructor(private opts: EmbeddedOpencodeOptions) {
    const bin = opts.bin ?? opencodeBinary();
    const env: Record<string, string> = embeddedOpencodeEnv();
    for (const [k, v] of Object.entries(opts.env ?? {})) if (v !== undefined) env[k] = v;
    this.sup = new ProcessSupervisor({
      name: "embedded opencode",
      command: () => [bin, "serve", "--port", String(this.port), "--hostname", "127.0.0.1", "--print-logs"],
      beforeSpawn: async () => {
        // The binary is run, not bundled: nothing for the build to trace.
        if (!fs.existsSync(/*turbopackIgnore: true*/ bin))
          throw new Error(`opencode binary not found at ${bin} (run npm install)`);
        if (!this.port || !(await portIsFree(this.port))) this.port = await freePort();
        this.url = undefined;
        this.opts.onState?.("starting");
      },
      env: { ...env, OPENCODE_SERVER_USERNAME: this.username, OPENCODE_SERVER_PASSWORD: this.password },
      cwd: opts.cwd,
      stderrLines: 50,
      onSpawn: (p) => void this.watch(p),
      onExit: (e) => this.onExit(e),
    });
  }

  get pid(): number | undefined {
    return this.sup.pid;
  }

  /**
   * Starts the server and resolves with its base URL once it answers health probes. When the first
   * start fails (no listening line, no health answer, an early exit) it rejects, and the server is
   * tried again with backoff: `whenReady()` resolves when one of those tries succeeds.
   */
  start(): Promise<string> {
    return new Promise<string>((resolve, reject) => {
      this.firstStart = { resolve, reject };
      this.sup.start();
    });
  }

  /** Resolves with the URL as soon as the server is (again) ready. */
  whenReady(): Promise<string> {
    if (this.url) return Promise.resolve(this.url);
    return new Promise((r) => this.readyWaiters.push(r));
  }

  async stop(): Promise<void> {
    this.url = undefined;
    await this.sup.stop();
  }

  /** Waits for the listening line (draining stdout for the rest of the process's life), then probes health. */
  private async watch(p: SupervisedProcess): Promise<void> {
    const gen = (this.gen = p.generation);
    const listenMs = this.opts.timeouts?.listenMs ?? 30_000;
    let found: string | undefined;
    const timer = setTimeout(
      () => this.fail(gen, `opencode did not print its listening line within ${listenMs / 1000} s`),
      listenMs,
    );
    timer.unref?.();
    void p.stdin.close().catch(() => undefined);
    const reader = p.stdout.getReader();
    const text = new TextDecoder();
    let buf = "";
    try {
      for (let r = await reader.read(); !r.done; r = await reader.read()) {
        if (found) continue;
        buf = (buf + text.decode(r.value, { stream: true })).slice(-10_000);
        const m = LISTEN_RE.exec(buf);
        if (!m) continue;
        found = m[1]!;
        clearTimeout(timer);
        void this.probe(found).then(
          () => this.ready(gen, found!),
          (err: unknown) => this.fail(gen, err instanceof Error ? err.message : String(err)),
        );
      }
    } catch {
      // the process is gone: its exit is reported by the supervisor
    } finally {
      clearTimeout(timer);
    }
  }

  private ready(gen: number, url: string) {
    if (gen !== this.gen || this.failed.has(gen)) return;
    this.url = url.replace(/\/$/, "");
    this.sup.markHealthy();
    log.info("embedded opencode ready", { url: this.url, pid: this.sup.pid });
    this.opts.onState?.("ready");
    this.firstStart?.resolve(this.url);
    this.firstStart = undefined;
    for (const w of this.readyWaiters.splice(0)) w(this.url);
  }

  /** A start that failed: reported, the half-started process killed, and another try follows. */
  private fail(gen: number, message: string) {
    if (gen !== this.gen || this.failed.has(gen) || this.url) return;
    this.failed.add(gen);
    this.report(message);
    this.sup.kill();
  }

  private report(message: string) {
    log.error("embedded opencode did not start; trying again", { error: message });
    this.opts.onState?.("down", message);
    this.firstStart?.reject(new Error(message));
    this.firstStart = undefined;
  }

  private onExit(e: ProcessExit) {
    const wasReady = this.url !== undefined && e.generation === this.gen;
    this.url = undefined;
    if (this.failed.delete(e.generation) || e.restartInMs === undefined) return;
    if (wasReady) {
      log.warn("embedded opencode died; restarting", {
        code: e.code,
        signal: e.signal,
        stderr: this.sup.logs().slice(-3),
      });
      this.opts.onState?.("down", `opencode exited (${e.signal ?? `code ${e.code}`})`);
      return;
    }
    const tail = this.sup
      .logs()
      .filter((l) => !l.startsWith("[switchboard]"))
      .slice(-5)
      .join(" | ");
    this.report(e.error ?? `opencode exited with code ${e.code} before listening: ${tail}`);
  }

  private async probe(url: string): Promise<void> {
    const auth = `Basic ${Buffer.from(`${this.username}:${this.password}`).toString("base64")}`;
    const healthMs = this.opts.timeouts?.healthMs ?? 20_000;
    const deadline = Date.now() + healthMs;
    while (Date.now() < deadline) {
      try {
        const r = await fetch(`${url}/global/health`, {
          headers: { authorization: auth },
          signal: AbortSignal.timeout(1000),
        });
        if (r.ok) return;
      } catch {
        // not ready yet
      }
      await sleep(150);
    }
    throw new Error(`opencode did not answer its health probe within ${healthMs / 1000} s`);
  }
}
