import "server-only";
import * as acp1 from "@agentclientprotocol/sdk";
import * as acp1u from "@agentclientprotocol/sdk/unstable";
import * as acp2 from "@agentclientprotocol/sdk/experimental/v2/unstable";
import type { SupervisedProcess } from "../../processes/supervisor";
import { withTimeout } from "../shared/agent-process";
import { obj, str } from "../shared/values";
import { AgentChannel } from "./channel";
import { rpcCode } from "./errors";
import { type AgreedInit, v2Drops, v2Init, v2Setup } from "./v2-shapes";

export type AcpVersion = 1 | 2;

/**
 * The authStatus extension (claude-agent-acp 0.101.0, dist/auth-status.js): an agent that declares
 * `_meta.authStatus` among its capabilities pushes `_auth/status_update` with `{authStatus: {kind,
 * label}}` once its own login is read after `initialize` (`kind: "none"`: not logged in); silence
 * means it cannot tell.
 */
export const AUTH_STATUS_UPDATE = "_auth/status_update";
export interface AgentAuthStatus {
  kind: string;
  label?: string;
}

/** The SDK client apps of one agent process (their handlers: ./client.ts). */
export interface LinkApps {
  v1(): acp1.ClientApp;
  v2(): acp2.ClientApp;
}

/** What the link reports of the agent's traffic besides what the SDK apps handle. */
export interface LinkWatch {
  /** The agent closed its stdout. */
  ended(): void;
  /** v2: a `session/update` the SDK will drop (its payload is not v2's), with its kind. */
  dropped(agentSessionId: string | undefined, kind: string): void;
  /** v2: a `session/prompt` result carrying v1's `stopReason` (v2's is an acknowledgement). */
  v1PromptResult(agentSessionId: string): void;
}

export interface ClientIdentity {
  name: string;
  title: string;
  version: string;
}

/** The setup result of a session (new, resume, load, fork, an option change) in v1 terms. */
export type SessionSetup = Record<string, unknown>;

/**
 * One agent process spoken to in the ACP version agreed at `initialize`, through the SDK's own
 * client of that version: `@agentclientprotocol/sdk` (v1) or `@agentclientprotocol/sdk/experimental/v2/unstable`
 * (v2, the draft of 2026-07-20; unstable for `session/fork`). The requests the adapter makes are
 * here once, each sent as its version has it; results come back in v1 terms (./v2-shapes.ts).
 *
 * Negotiation (docs/backends/acp.md#acp-versions): the console offers v2 on an SDK v2 connection.
 * Its `initialize` also carries v1's `clientInfo` and `clientCapabilities`, which v2 agents ignore (the
 * SDK's v2 parser strips unknown keys): it is at once a v2 request and a v1 request "for version 2",
 * so a v1 agent answers it once with its version 1 (v1: "respond with the latest version it
 * supports"), and the SDK v1 connection takes over on the same process. An agent that answers the
 * offer with an error is asked again in plain v1. `forceV1` asks for v1 only.
 */
export class AcpLink {
  version: AcpVersion | undefined;
  private channel: AgentChannel;
  private c1: acp1.ClientConnection | undefined;
  private c2: acp2.ClientConnection | undefined;
  /** The first `initialize` result as read (before the SDK's schema), whatever its version. */
  private rawInit: unknown;
  /** v2: `session/prompt` requests in flight, by JSON-RPC id → agent session id. */
  private prompts = new Map<string | number, string>();
  /** The agent's newest `_auth/status_update` push (the authStatus extension), and who waits for one. */
  private authStatus: AgentAuthStatus | undefined;
  private authWaiters: Array<(s: AgentAuthStatus) => void> = [];

  constructor(
    p: SupervisedProcess,
    private apps: LinkApps,
    private watch: LinkWatch,
  ) {
    this.channel = new AgentChannel(acp1.ndJsonStream(p.stdin, p.stdout), {
      incoming: (m) => this.incoming(m),
      outgoing: (m) => this.outgoing(m),
      ended: () => watch.ended(),
    });
  }

  private incoming(m: acp1.AnyMessage) {
    if (this.rawInit === undefined && "result" in m && m.result && typeof m.result === "object")
      if ("protocolVersion" in m.result) this.rawInit = m.result;
    if ("method" in m && m.method === AUTH_STATUS_UPDATE) {
      // a notification the SDK apps do not know (they drop it): read here, in either version
      const status = obj(obj(m.params).authStatus);
      const kind = str(status.kind);
      if (kind) {
        this.authStatus = { kind, ...(str(status.label) ? { label: str(status.label) } : {}) };
        for (const w of this.authWaiters.splice(0)) w(this.authStatus);
      }
      return;
    }
    if (this.version !== 2) return;
    if ("method" in m && m.method === "session/update" && !("id" in m && m.id !== undefined)) {
      const p = obj(m.params);
      if (v2Drops(p.update)) this.watch.dropped(str(p.sessionId), str(obj(p.update).sessionUpdate) ?? "malformed");
      return;
    }
    if ("id" in m && m.id !== null && m.id !== undefined && !("method" in m)) {
      const sid = this.prompts.get(m.id);
      if (sid === undefined) return;
      this.prompts.delete(m.id);
      if ("result" in m && obj(m.result).stopReason !== undefined) this.watch.v1PromptResult(sid);
    }
  }

  /**
   * The agent's own login as it reports it (`_auth/status_update`), waiting up to `timeoutMs` for the
   * first push; undefined when it reports nothing (its way of saying "cannot tell").
   */
  authStatusReported(timeoutMs: number): Promise<AgentAuthStatus | undefined> {
    if (this.authStatus) return Promise.resolve(this.authStatus);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.authWaiters = this.authWaiters.filter((w) => w !== done);
        resolve(undefined);
      }, timeoutMs);
      const done = (s: AgentAuthStatus) => {
        clearTimeout(timer);
        resolve(s);
      };
      this.authWaiters.push(done);
    });
  }

  private outgoing(m: acp1.AnyMessage) {
    if ("method" in m && m.method === "session/prompt" && "id" in m && m.id !== null && m.id !== undefined) {
      const sid = str(obj(m.params).sessionId);
      if (sid) this.prompts.set(m.id, sid);
    }
  }

  private get v1(): acp1.ClientConnection {
    if (!this.c1) throw new Error("the ACP v1 connection is not open");
    return this.c1;
  }
  private get v2(): acp2.ClientConnection {
    if (!this.c2) throw new Error("the ACP v2 connection is not open");
    return this.c2;
  }

  private seatV1(): acp1.ClientConnection {
    this.c2 = undefined;
    this.c1 = this.apps.v1().connect(this.channel.open());
    this.version = 1;
    return this.c1;
  }

  /** `initialize`: v2 where the agent offers it (unless `forceV1`), else v1. */
  async initialize(o: { client: ClientIdentity; forceV1: boolean; timeoutMs: number }): Promise<AgreedInit> {
    const v1Params: Omit<acp1.InitializeRequest, "protocolVersion"> = {
      // `auth.terminal`: agents list their terminal logins (claude-agent-acp), shown as the command to run.
      // `elicitation.url`: device-code logins show their link and code (codex-acp lists them only then).
      clientCapabilities: {
        fs: { readTextFile: true, writeTextFile: true },
        terminal: false,
        auth: { terminal: true },
        elicitation: { url: {} },
      },
      clientInfo: o.client,
    };
    const asV1 = async () => {
      const init = await withTimeout(
        this.seatV1().agent.request(acp1.methods.agent.initialize, { protocolVersion: 1, ...v1Params }),
        o.timeoutMs,
        "initialize",
      );
      return {
        protocolVersion: init.protocolVersion,
        agentCapabilities: init.agentCapabilities ?? {},
        agentInfo: init.agentInfo ?? undefined,
        raw: this.rawInit ?? init,
      };
    };
    if (o.forceV1) return asV1();
    this.c2 = this.apps.v2().connect(this.channel.open());
    this.version = 2;
    try {
      const params: acp2.InitializeRequest = {
        protocolVersion: 2,
        info: o.client,
        // v2 has no client file system or terminal: only auth and elicitation remain
        capabilities: { auth: { terminal: {} }, elicitation: { url: {} } },
      };
      // v1's fields beside v2's (see the class comment): the SDK sends the request as given
      await withTimeout(
        this.c2.agent.request(acp2.methods.agent.initialize, { ...params, ...v1Params } as acp2.InitializeRequest),
        o.timeoutMs,
        "initialize",
      );
      return v2Init(this.rawInit);
    } catch (err) {
      const answered = this.rawInit !== undefined ? obj(this.rawInit) : undefined;
      if (answered && answered.protocolVersion === 1) {
        // a v1 agent's answer to the shared request: its session with the console is v1
        this.seatV1();
        const caps = obj(answered.agentCapabilities) as acp1.AgentCapabilities;
        const info = obj(answered.agentInfo);
        return {
          protocolVersion: 1,
          agentCapabilities: caps,
          agentInfo: answered.agentInfo ? (info as AgreedInit["agentInfo"]) : undefined,
          raw: answered,
        };
      }
      // an agent that refused the offer itself (a JSON-RPC error) is asked for v1 alone
      if (rpcCode(err) !== undefined && !this.channel.ended) {
        this.rawInit = undefined;
        return asV1();
      }
      throw err;
    }
  }

  close(): void {
    this.c1?.close();
    this.c2?.close();
    this.channel.close();
  }

  /* ------------------------------------------------------------------ agent methods, per version */

  authenticate(methodId: string, meta?: Record<string, unknown>, signal?: AbortSignal): Promise<unknown> {
    const params = { methodId, ...(meta ? { _meta: meta } : {}) };
    const opts = signal ? { cancellationSignal: signal } : undefined;
    return this.version === 2
      ? this.v2.agent.request(acp2.methods.agent.auth.login, params, opts)
      : this.v1.agent.request(acp1.methods.agent.authenticate, params, opts);
  }

  async newSession(cwd: string): Promise<SessionSetup & { sessionId: string }> {
    return this.version === 2
      ? v2Setup(await this.v2.agent.request(acp2.methods.agent.session.new, { cwd, mcpServers: [] }))
      : this.v1.agent.request(acp1.methods.agent.session.new, { cwd, mcpServers: [] });
  }

  /** v1: the turn's result (`stopReason`, `usage`); v2: an acknowledgement (`messageId`), the end follows as `state_update`. */
  prompt(sessionId: string, prompt: acp1.ContentBlock[]): Promise<unknown> {
    return this.version === 2
      ? this.v2.agent.request(acp2.methods.agent.session.prompt, {
          sessionId,
          prompt: prompt as acp2.ContentBlock[],
        })
      : this.v1.agent.request(acp1.methods.agent.session.prompt, { sessionId, prompt });
  }

  cancel(sessionId: string): Promise<void> {
    return this.version === 2
      ? this.v2.agent.notify(acp2.methods.agent.session.cancel, { sessionId })
      : this.v1.agent.notify(acp1.methods.agent.session.cancel, { sessionId });
  }

  /** v1 only (v2 has no modes: they are config options there). */
  setMode(sessionId: string, modeId: string): Promise<unknown> {
    return this.v1.agent.request(acp1.methods.agent.session.setMode, { sessionId, modeId });
  }

  async setConfigOption(sessionId: string, configId: string, value: string | boolean): Promise<SessionSetup> {
    if (this.version === 2)
      return v2Setup(
        await this.v2.agent.request(
          acp2.methods.agent.session.setConfigOption,
          typeof value === "boolean"
            ? { sessionId, configId, type: "boolean", value }
            : { sessionId, configId, type: "id", value },
        ),
      );
    return this.v1.agent.request(
      acp1.methods.agent.session.setConfigOption,
      typeof value === "boolean" ? { sessionId, configId, type: "boolean", value } : { sessionId, configId, value },
    );
  }

  listSessions(cursor?: string): Promise<acp1.ListSessionsResponse> {
    const params = cursor ? { cursor } : {};
    return this.version === 2
      ? this.v2.agent.request(acp2.methods.agent.session.list, params)
      : this.v1.agent.request(acp1.methods.agent.session.list, params);
  }

  /** Reattaches without replay. */
  async resume(sessionId: string, cwd: string): Promise<SessionSetup> {
    return this.version === 2
      ? v2Setup(await this.v2.agent.request(acp2.methods.agent.session.resume, { sessionId, cwd, mcpServers: [] }))
      : this.v1.agent.request(acp1.methods.agent.session.resume, { sessionId, cwd, mcpServers: [] });
  }

  /** Opens a session with its history replayed as updates (v1 `session/load`; v2 `session/resume` from the start). */
  async load(sessionId: string, cwd: string): Promise<SessionSetup> {
    return this.version === 2
      ? v2Setup(
          await this.v2.agent.request(acp2.methods.agent.session.resume, {
            sessionId,
            cwd,
            mcpServers: [],
            replayFrom: { type: "start" },
          }),
        )
      : this.v1.agent.request(acp1.methods.agent.session.load, { sessionId, cwd, mcpServers: [] });
  }

  closeSession(sessionId: string): Promise<unknown> {
    return this.version === 2
      ? this.v2.agent.request(acp2.methods.agent.session.close, { sessionId })
      : this.v1.agent.request(acp1.methods.agent.session.close, { sessionId });
  }

  deleteSession(sessionId: string): Promise<unknown> {
    return this.version === 2
      ? this.v2.agent.request(acp2.methods.agent.session.delete, { sessionId })
      : this.v1.agent.request(acp1.methods.agent.session.delete, { sessionId });
  }

  /** `session/fork` (unstable in both versions). */
  async fork(sessionId: string, cwd: string): Promise<SessionSetup & { sessionId: string }> {
    if (this.version === 2)
      return v2Setup(await this.v2.agent.request(acp2.methods.agent.session.fork, { sessionId, cwd, mcpServers: [] }));
    const params: acp1u.ForkSessionRequest = { sessionId, cwd, mcpServers: [] };
    return this.v1.agent.request<acp1u.ForkSessionResponse>(acp1u.methods.agent.session.fork, params);
  }
}
