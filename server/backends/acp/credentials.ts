import "server-only";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import type { Backend } from "@/lib/model";
import { ApiError } from "../../errors";
import { log } from "../../log";
import type { LiveStore } from "../../store/store";
import { withTimeout } from "../shared/agent-process";
import { obj } from "../shared/values";
import {
  API_KEY_FIELD,
  authHelp,
  describeAuthMethods,
  keyedMethod,
  mergeCredentials,
  readAuthMethods,
  satisfiedMethod,
  shouldProbe,
  withKnownMethods,
  withTerminalCommands,
  type AuthMethodInfo,
} from "./auth";
import { DeviceLogin, isDeviceLogin } from "./device-login";
import { agentMessage, mapAcpError } from "./errors";
import type { AcpLink, SessionSetup } from "./link";
import { REQUEST_TIMEOUT_MS } from "./sessions";

export interface AcpAuthOptions {
  backendId: string;
  label: string;
  store: LiveStore;
  /** The config's `env`. */
  env?: Record<string, string> | undefined;
  /** Where the post-handshake check opens its session (when the agent cannot close sessions). */
  defaultCwd: string;
  /** The agent's command line: `terminal` methods run it with their arguments. */
  command?: readonly string[];
  /** What the browser sees changed (a sign-in's link and code). */
  changed?: () => void;
  /** A sign-in run from Settings finished: the agent can open sessions. */
  loggedIn?: () => void;
}

const credentialsKey = (backendId: string) => `acp-credentials:${backendId}`;
/** API keys for key-taking `agent` methods, by method id (sent in `authenticate`'s `_meta`, never in the environment). */
const keysKey = (backendId: string) => `acp-method-keys:${backendId}`;

/** What the post-handshake check needs of `initialize`'s `agentCapabilities`. */
/**
 * How long the check waits for an agent's first `_auth/status_update` (./link.ts): claude-agent-acp
 * bounds its `claude auth status` read at 5 s (dist/auth-status.js, AUTH_STATUS_PROBE_TIMEOUT_MS).
 */
const AUTH_STATUS_WAIT_MS = 7_000;

/** `initialize` declared the authStatus extension (`_meta.authStatus` among v1's `agentCapabilities` or v2's `capabilities`). */
function reportsAuthStatus(raw: unknown): boolean {
  const r = obj(raw);
  const caps = obj(r.capabilities ?? r.agentCapabilities);
  return obj(caps._meta).authStatus !== undefined;
}

export interface ProbeCaps {
  /** The agent declares `session/close`: the check opens its session in a temporary directory and closes it. */
  canClose: boolean;
}

/**
 * ACP authentication (docs/backends/acp.md#authentication): the methods `initialize` advertised,
 * the credentials entered in Settings (kept in the store, never sent to the browser) merged into the
 * agent's environment, and the check after each handshake — whether the agent can open a session.
 */
export class AcpAuth {
  methods: AuthMethodInfo[] = [];
  /** The agent's environment: the config's `env` and the stored credentials. Updated in place: the supervisor reads it at every spawn. */
  readonly env: Record<string, string>;
  /** Why the agent cannot open a session (the post-handshake check, or a failed `authenticate`). */
  blocked: string | undefined;
  /**
   * The agent itself reported it is not logged in (`_auth/status_update`, kind "none"): New session is
   * refused with `blocked` even though the agent would open one (Claude Code fails only at the prompt).
   */
  reportedLoggedOut = false;
  /** The session the post-handshake check opened, handed to the first new session in its directory. */
  private spare: { gen: number; cwd: string; res: SessionSetup & { sessionId: string } } | undefined;
  /** Device-code sign-ins started from Settings. */
  readonly device: DeviceLogin;

  constructor(private o: AcpAuthOptions) {
    this.env = { ...(o.env ?? {}), ...this.stored() };
    this.device = new DeviceLogin({
      backendId: o.backendId,
      label: o.label,
      changed: () => o.changed?.(),
      done: () => {
        this.blocked = undefined;
        o.loggedIn?.();
      },
    });
  }

  /** For `Backend.authMethods`. */
  describe(): Pick<Backend, "authMethods"> {
    if (!this.methods.length) return {};
    const login = this.device.state;
    const described = describeAuthMethods(this.methods, this.env, this.keys());
    return {
      authMethods: described.map((d, i) => {
        const m = this.methods[i]!;
        if (!isDeviceLogin(m)) return d;
        const { methodId: _, ...state } = login?.methodId === m.id ? login : { methodId: "" };
        return { ...d, signIn: true, ...(login?.methodId === m.id ? { login: state } : {}) };
      }),
    };
  }

  /** What a terminal login runs (`run`: its command and arguments); 404 unknown, 409 not a terminal login. */
  terminalLogin(methodId: string): { run: string[]; display: string } {
    const method = this.methods.find((m) => m.id === methodId);
    if (!method) throw ApiError.notFound(`${this.o.label} has no auth method ${methodId}`);
    if (!method.run?.length) throw ApiError.conflict(`${method.name} is not a login the console can run in a terminal`);
    return { run: method.run, display: method.command ?? method.run.join(" ") };
  }

  /** Starts a device-code sign-in (`methodId`) on the agent process `gen`; the link and code follow in `describe`. */
  signIn(conn: AcpLink, gen: number, methodId: string): void {
    const method = this.methods.find((m) => m.id === methodId);
    if (!method) throw ApiError.notFound(`${this.o.label} has no auth method ${methodId}`);
    this.device.start(conn, gen, method);
  }

  /**
   * After `initialize` (`raw`: its result as sent, which keeps the `env_var` methods' fields): an
   * `env_var` method whose variables the agent has gets the `authenticate` call (when the agent
   * advertised it); an agent that advertises `env_var` methods and has none of them is asked for a
   * session, which tells whether it has credentials of its own (a login). `blocked` says why not.
   */
  async check(
    conn: AcpLink,
    gen: number,
    raw: unknown,
    agentName: string | undefined,
    caps: ProbeCaps = { canClose: false },
  ): Promise<void> {
    this.methods = withTerminalCommands(withKnownMethods(readAuthMethods(raw), agentName), this.o.command ?? []);
    this.spare = undefined;
    this.device.reset();
    this.reportedLoggedOut = false;
    this.blocked = await this.probe(conn, gen, raw, caps);
  }

  private async probe(conn: AcpLink, gen: number, raw: unknown, caps: ProbeCaps): Promise<string | undefined> {
    const method = satisfiedMethod(this.methods, this.env);
    if (method) {
      if (method.origin !== "agent") return undefined;
      try {
        await withTimeout(conn.authenticate(method.id), REQUEST_TIMEOUT_MS, "authenticate");
        return undefined;
      } catch (err) {
        log.warn("ACP authenticate failed", { backend: this.o.backendId, method: method.id, error: agentMessage(err) });
        return `${method.name} failed: ${agentMessage(err)}. ${authHelp(this.methods)}`;
      }
    }
    const keyed = keyedMethod(this.methods, this.keys());
    if (keyed) {
      try {
        // codex-acp reads the key from `_meta["api-key"].apiKey` (src/CodexAcpClient.ts, authenticateWithApiKey;
        // in v2 `auth/login` takes the same params)
        await withTimeout(
          conn.authenticate(keyed.id, { "api-key": { apiKey: this.keys()[keyed.id] } }),
          REQUEST_TIMEOUT_MS,
          "authenticate",
        );
        return undefined;
      } catch (err) {
        log.warn("ACP authenticate failed", { backend: this.o.backendId, method: keyed.id, error: agentMessage(err) });
        return `${keyed.name} failed: ${agentMessage(err)}. ${authHelp(this.methods)}`;
      }
    }
    if (reportsAuthStatus(raw)) {
      // the agent tells its own login (claude-agent-acp reads `claude auth status` after initialize)
      const status = await conn.authStatusReported(AUTH_STATUS_WAIT_MS);
      this.reportedLoggedOut = status?.kind === "none";
      if (status?.kind === "none")
        return `${this.o.label} is not logged in${status.label ? ` (it reports "${status.label}")` : ""}. ${authHelp(this.methods)}`;
      if (status) return undefined;
    }
    if (!shouldProbe(this.methods, this.env)) return undefined;
    return caps.canClose ? this.probeAndClose(conn) : this.probeAndKeep(conn, gen);
  }

  /** A session opened in the default directory and kept for the first New session there (agents that cannot close one). */
  private async probeAndKeep(conn: AcpLink, gen: number): Promise<string | undefined> {
    try {
      const cwd = this.o.defaultCwd;
      const res = await withTimeout(conn.newSession(cwd), REQUEST_TIMEOUT_MS, "session/new");
      this.spare = { gen, cwd, res };
      return undefined;
    } catch (err) {
      return this.helpOf(err);
    }
  }

  /** A throwaway session in an empty temporary directory, closed at once (`session/close`). */
  private async probeAndClose(conn: AcpLink): Promise<string | undefined> {
    const dir = await mkdtemp(path.join(os.tmpdir(), "switchboard-acp-probe-"));
    try {
      const res = await withTimeout(conn.newSession(dir), REQUEST_TIMEOUT_MS, "session/new");
      await withTimeout(conn.closeSession(res.sessionId), REQUEST_TIMEOUT_MS, "session/close").catch((err: unknown) =>
        log.warn("ACP probe session not closed", { backend: this.o.backendId, error: agentMessage(err) }),
      );
      return undefined;
    } catch (err) {
      return this.helpOf(err);
    } finally {
      await rm(dir, { recursive: true, force: true }).catch(() => undefined);
    }
  }

  private helpOf(err: unknown): string | undefined {
    let help: string | undefined;
    this.mapError(err, "create a session", (h) => (help = h));
    return help;
  }

  /** The session the check opened, if it was opened by the process of `gen` in `cwd` (once). */
  takeSpare(gen: number | undefined, cwd: string): (SessionSetup & { sessionId: string }) | undefined {
    const spare = this.spare;
    this.spare = undefined;
    return spare && spare.gen === gen && spare.cwd === cwd ? spare.res : undefined;
  }

  /** An agent error as the console's; "authentication required" calls `onAuthRequired` with the login help. */
  mapError(err: unknown, what: string, onAuthRequired: (help: string) => void): ApiError {
    return mapAcpError(err, what, { label: this.o.label, authMethods: this.methods, onAuthRequired });
  }

  private stored(key = credentialsKey(this.o.backendId)): Record<string, string> {
    const raw = this.o.store.getMeta(key);
    if (!raw) return {};
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      return {};
    }
    const r = z.record(z.string(), z.string()).safeParse(parsed);
    return r.success ? r.data : {};
  }

  private keys(): Record<string, string> {
    return this.stored(keysKey(this.o.backendId));
  }

  /** The backend is removed: its stored credentials go. */
  forget(): void {
    for (const key of [credentialsKey(this.o.backendId), keysKey(this.o.backendId)])
      if (this.o.store.getMeta(key) !== undefined) this.o.store.setMeta(key, "{}");
  }

  /**
   * Keeps the values of an `env_var` method, or the key of a key-taking `agent` method (`{apiKey}`);
   * 400/404 for what it does not take; the agent must be restarted.
   */
  setCredentials(methodId: string, vars: Record<string, string>): void {
    const method = this.methods.find((m) => m.id === methodId);
    if (!method) throw ApiError.notFound(`${this.o.label} has no auth method ${methodId}`);
    if (method.apiKey) {
      const unknown = Object.keys(vars).filter((k) => k !== API_KEY_FIELD);
      if (unknown.length) throw ApiError.badRequest(`${method.name} takes only ${API_KEY_FIELD}`);
      const value = vars[API_KEY_FIELD];
      if (value === undefined) return;
      const keys = this.keys();
      if (value.trim() === "") delete keys[methodId];
      else keys[methodId] = value.trim();
      this.o.store.setMeta(keysKey(this.o.backendId), JSON.stringify(keys));
      this.blocked = undefined;
      return;
    }
    if (method.type !== "env_var") throw ApiError.badRequest(`${method.name} takes no values from the console`);
    const unknown = Object.keys(vars).filter((k) => !method.vars.some((v) => v.name === k));
    if (unknown.length) throw ApiError.badRequest(`${method.name} does not use ${unknown.join(", ")}`);
    const creds = mergeCredentials(this.stored(), vars);
    this.o.store.setMeta(credentialsKey(this.o.backendId), JSON.stringify(creds));
    // in place: the supervisor reads this object at the next spawn
    for (const k of Object.keys(vars)) delete this.env[k];
    Object.assign(this.env, this.o.env ?? {}, creds);
    this.blocked = undefined;
  }
}
