import "server-only";
import type { Backend } from "@/lib/model";
import { ApiError, describeError } from "../../errors";
import type { JsonRpcPeer } from "../shared/json-rpc";
import { arr, isObj, obj, str } from "../shared/values";

type AuthProviders = NonNullable<Backend["auth"]>["providers"];

/**
 * Opal's login: its model providers (`auth/status`), GitHub Copilot's device flow and API keys.
 * While a login is missing, `note` says what to do; the backend shows it as `auth-required`.
 */
export class OpalAuth {
  note: string | undefined;
  loggingIn = false;
  /** An `auth/poll` is in flight: Opal's RPC loop answers nothing else until it returns. */
  polling = false;
  /** Don't start the device flow (an API key is being set instead). */
  keyFlow = false;
  providers: AuthProviders | undefined;

  /** `changed`: the note changed; the backend's status is set again ("ready", shown as `auth-required` with a note). */
  constructor(
    private label: string,
    private changed: () => void,
  ) {}

  /** `auth/status` in the handshake: ready, waiting for an API key, or the device flow starts. */
  handshake(auth: Record<string, unknown>, peer: JsonRpcPeer) {
    this.readProviders(auth);
    if (auth.authenticated === true) this.note = undefined;
    else if (this.keyFlow) this.note = this.loginNote();
    else if (!this.loggingIn) void this.deviceFlow(peer);
  }

  /**
   * Opal's GitHub device flow: `auth/login` gives a code and a link, shown as the backend's
   * `auth-required` message; `auth/poll` waits until the user entered it, then the backend is ready.
   */
  async deviceFlow(peer: JsonRpcPeer) {
    this.loggingIn = true;
    try {
      const login = obj(await peer.request("auth/login", {}, { timeoutMs: 30_000 }));
      const code = str(login.user_code) ?? "?";
      const uri = str(login.verification_uri) ?? "https://github.com/login/device";
      const keys = this.keyProviders();
      this.note =
        `Opal needs a GitHub Copilot login: open ${uri} and enter the code ${code}. ` +
        `This page updates when you are done.${keys ? ` Or set an API key for ${keys} below.` : ""}`;
      this.changed();
      // `auth/poll` blocks Opal's whole RPC loop until the code is entered: nothing else is sent
      // meanwhile (`call` answers at once).
      this.polling = true;
      try {
        await peer.request(
          "auth/poll",
          {
            device_code: str(login.device_code) ?? "",
            interval: typeof login.interval === "number" ? login.interval : 5,
          },
          { timeoutMs: 15 * 60_000 },
        );
      } finally {
        this.polling = false;
      }
      this.note = undefined;
      this.readProviders(obj(await peer.request("auth/status", {}, { timeoutMs: 30_000 }).catch(() => ({}))));
      this.changed();
    } catch (err) {
      if (peer.isClosed) return;
      this.note =
        `Opal needs a GitHub Copilot login, and its device flow failed (${describeError(err)}). ` +
        "Restart the backend to try again.";
      this.changed();
    } finally {
      this.loggingIn = false;
    }
  }

  /**
   * `auth/status`'s providers (Opal probes every source: Copilot's token, API keys in the
   * environment or its settings).
   */
  readProviders(auth: Record<string, unknown>) {
    const list = arr(obj(auth.auth).providers)
      .filter(isObj)
      .flatMap((p) => {
        const id = str(p.id);
        if (!id) return [];
        const envVar = str(p.env_var);
        return [
          {
            id,
            name: str(p.name) ?? id,
            method: p.method === "api_key" ? ("api_key" as const) : ("device_code" as const),
            ready: p.ready === true,
            ...(envVar ? { envVar } : {}),
          },
        ];
      });
    this.providers = list.length ? list : undefined;
  }

  private keyProviders(): string | undefined {
    const names = (this.providers ?? []).filter((p) => p.method === "api_key").map((p) => p.name);
    return names.length ? names.join(", ") : undefined;
  }

  private loginNote(): string {
    const keys = this.keyProviders();
    return (
      `Opal has no model provider yet: set an API key${keys ? ` for ${keys}` : ""} below, ` +
      "or restart the backend for GitHub Copilot's device login."
    );
  }

  /** Opal's RPC loop is held by `auth/poll` until the login is done: a request now would wait for it. */
  notWhilePolling() {
    if (this.polling)
      throw ApiError.down(
        `${this.label} is waiting for its GitHub Copilot login to finish and answers nothing else until then ` +
          `(${this.note ?? "see Settings"})`,
      );
  }
}
