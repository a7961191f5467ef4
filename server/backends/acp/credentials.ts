import "server-only";
import { methods, type ClientConnection, type NewSessionResponse } from "@agentclientprotocol/sdk";
import { z } from "zod";
import type { Backend } from "@/lib/model";
import { ApiError } from "../../errors";
import { log } from "../../log";
import type { LiveStore } from "../../store/store";
import { withTimeout } from "../shared/agent-process";
import {
  authHelp,
  describeAuthMethods,
  mergeCredentials,
  readAuthMethods,
  satisfiedMethod,
  shouldProbe,
  withKnownMethods,
  type AuthMethodInfo,
} from "./auth";
import { agentMessage, mapAcpError } from "./errors";
import { REQUEST_TIMEOUT_MS } from "./sessions";

export interface AcpAuthOptions {
  backendId: string;
  label: string;
  store: LiveStore;
  /** The config's `env`. */
  env?: Record<string, string> | undefined;
  /** Where the post-handshake check opens its session. */
  defaultCwd: string;
}

const credentialsKey = (backendId: string) => `acp-credentials:${backendId}`;

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
  /** The session the post-handshake check opened, handed to the first new session in its directory. */
  private spare: { gen: number; cwd: string; res: NewSessionResponse } | undefined;

  constructor(private o: AcpAuthOptions) {
    this.env = { ...(o.env ?? {}), ...this.stored() };
  }

  /** For `Backend.authMethods`. */
  describe(): Pick<Backend, "authMethods"> {
    return this.methods.length ? { authMethods: describeAuthMethods(this.methods, this.env) } : {};
  }

  /**
   * After `initialize` (`raw`: its result as sent, which keeps the `env_var` methods' fields): an
   * `env_var` method whose variables the agent has gets the `authenticate` call (when the agent
   * advertised it); an agent that advertises `env_var` methods and has none of them is asked for a
   * session, which tells whether it has credentials of its own (a login). `blocked` says why not.
   */
  async check(conn: ClientConnection, gen: number, raw: unknown, agentName: string | undefined): Promise<void> {
    this.methods = withKnownMethods(readAuthMethods(raw), agentName);
    this.spare = undefined;
    this.blocked = await this.probe(conn, gen);
  }

  private async probe(conn: ClientConnection, gen: number): Promise<string | undefined> {
    const method = satisfiedMethod(this.methods, this.env);
    if (method) {
      if (method.origin !== "agent") return undefined;
      try {
        await withTimeout(
          conn.agent.request(methods.agent.authenticate, { methodId: method.id }),
          REQUEST_TIMEOUT_MS,
          "authenticate",
        );
        return undefined;
      } catch (err) {
        log.warn("ACP authenticate failed", { backend: this.o.backendId, method: method.id, error: agentMessage(err) });
        return `${method.name} failed: ${agentMessage(err)}. ${authHelp(this.methods)}`;
      }
    }
    if (!shouldProbe(this.methods, this.env)) return undefined;
    try {
      const cwd = this.o.defaultCwd;
      const res = await withTimeout(
        conn.agent.request(methods.agent.session.new, { cwd, mcpServers: [] }),
        REQUEST_TIMEOUT_MS,
        "session/new",
      );
      this.spare = { gen, cwd, res };
      return undefined;
    } catch (err) {
      let help: string | undefined;
      this.mapError(err, "create a session", (h) => (help = h));
      return help;
    }
  }

  /** The session the check opened, if it was opened by the process of `gen` in `cwd` (once). */
  takeSpare(gen: number | undefined, cwd: string): NewSessionResponse | undefined {
    const spare = this.spare;
    this.spare = undefined;
    return spare && spare.gen === gen && spare.cwd === cwd ? spare.res : undefined;
  }

  /** An agent error as the console's; "authentication required" calls `onAuthRequired` with the login help. */
  mapError(err: unknown, what: string, onAuthRequired: (help: string) => void): ApiError {
    return mapAcpError(err, what, { label: this.o.label, authMethods: this.methods, onAuthRequired });
  }

  private stored(): Record<string, string> {
    const raw = this.o.store.getMeta(credentialsKey(this.o.backendId));
    if (!raw) return {};
    const r = z.record(z.string(), z.string()).safeParse(JSON.parse(raw));
    return r.success ? r.data : {};
  }

  /** The backend is removed: its stored credentials go. */
  forget(): void {
    const key = credentialsKey(this.o.backendId);
    if (this.o.store.getMeta(key) !== undefined) this.o.store.setMeta(key, "{}");
  }

  /** Keeps the values of an `env_var` method (400/404 for what it does not take); the agent must be restarted. */
  setCredentials(methodId: string, vars: Record<string, string>): void {
    const method = this.methods.find((m) => m.id === methodId);
    if (!method) throw ApiError.notFound(`${this.o.label} has no auth method ${methodId}`);
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
