import "server-only";
import type { CreateElicitationResponse } from "@agentclientprotocol/sdk";
import { ApiError } from "../../errors";
import { log } from "../../log";
import { type AuthMethodInfo, isDeviceLogin } from "./auth";
import { agentMessage } from "./errors";
import type { AcpLink } from "./link";

/** How long a device-code login may take (the user opens the link and types the code). */
const LOGIN_TIMEOUT_MS = 15 * 60_000;

/** A running or failed sign-in, as Settings shows it. */
export interface LoginState {
  methodId: string;
  url?: string;
  message?: string;
  error?: string;
}

export { isDeviceLogin };

/**
 * Device-code sign-in over ACP (docs/backends/acp.md#authentication): `authenticate` with the
 * method's id, during which the agent asks the client to open a URL (`elicitation/create`, mode
 * `url`; codex-acp puts the one-time code in its message). The console accepts it and shows the link
 * and the code in Settings; `authenticate` answers when the user has finished there.
 */
export class DeviceLogin {
  state: LoginState | undefined;
  private gen: number | undefined;

  constructor(
    private o: {
      backendId: string;
      label: string;
      /** The state changed (the browser's copy of the backend must follow). */
      changed: () => void;
      /** The login finished: the agent can open sessions. */
      done: () => void;
    },
  ) {}

  /** Starts `method`'s sign-in on the connection of `gen`; answers once the agent has been asked. */
  start(conn: AcpLink, gen: number, method: AuthMethodInfo): void {
    if (!isDeviceLogin(method)) throw ApiError.badRequest(`${method.name} is not a sign-in the console can run`);
    if (this.state && !this.state.error && this.gen === gen)
      throw ApiError.conflict(`A sign-in to ${this.o.label} is already running`);
    this.state = { methodId: method.id };
    this.gen = gen;
    this.o.changed();
    const timer = setTimeout(() => ac.abort(), LOGIN_TIMEOUT_MS);
    const ac = new AbortController();
    conn
      .authenticate(method.id, undefined, ac.signal)
      .then(
        () => {
          if (this.gen !== gen) return;
          this.state = undefined;
          this.o.done();
          this.o.changed();
        },
        (err: unknown) => {
          if (this.gen !== gen) return;
          log.warn("ACP sign-in failed", { backend: this.o.backendId, method: method.id, error: agentMessage(err) });
          this.state = { methodId: method.id, error: `${method.name} failed: ${agentMessage(err)}` };
          this.o.changed();
        },
      )
      .finally(() => clearTimeout(timer));
  }

  /** The agent's URL elicitation: accepted while a sign-in of that process runs, declined otherwise. */
  elicitUrl(gen: number, p: { url: string; message: string }): CreateElicitationResponse {
    if (!this.state || this.state.error || this.gen !== gen || !/^https?:\/\//i.test(p.url))
      return { action: "decline" };
    this.state = { ...this.state, url: p.url, message: p.message };
    this.o.changed();
    return { action: "accept" };
  }

  /** A new agent process: a sign-in of the previous one is gone. */
  reset(): void {
    this.state = undefined;
    this.gen = undefined;
  }
}
