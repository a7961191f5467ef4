import "server-only";
import {
  client,
  methods,
  RequestError,
  type CreateElicitationResponse,
  type RequestPermissionResponse,
} from "@agentclientprotocol/sdk";
import * as acp2 from "@agentclientprotocol/sdk/experimental/v2/unstable";
import type { InterruptAnswer } from "@/lib/api";
import type { TimelineEvent } from "@/lib/model";
import { ApiError, describeError } from "../../errors";
import { log } from "../../log";
import type { SupervisedProcess } from "../../processes/supervisor";
import type { AgentProcess } from "../shared/agent-process";
import { ConfinedPathError, readConfinedText, textSlice, writeConfinedText } from "../shared/files";
import type { InterruptBook } from "../shared/interrupts";
import { AcpLink, type AcpVersion } from "./link";
import { markRejected, permissionRequest } from "./normalize";
import { drainIncoming, type AcpSessions, type Runtime } from "./sessions";
import { CANCELLED } from "./turns";
import { v2PermissionRequest, type V2Applied } from "./v2-updates";

/** What the client side needs of the adapter. */
export interface AcpClientHost {
  backendId: string;
  sessions: AcpSessions;
  interrupts: InterruptBook<RequestPermissionResponse>;
  proc: AgentProcess<AcpLink>;
  emit(rt: Runtime, events: TimelineEvent[]): void;
  /** What a v2 update meant for the session's turn (its end, the agent's error, a protocol error). */
  v2Outcome(rt: Runtime, outcome: V2Applied): void;
  /** v2: the agent answered a prompt with v1's `stopReason` (the turn may never see its `state_update`). */
  v1PromptResult(rt: Runtime): void;
  /** A URL elicitation (`elicitation/create`, mode `url`): a device-code login's link and code. */
  elicitUrl(gen: number, params: { url: string; message: string; elicitationId: string }): CreateElicitationResponse;
  /** `elicitation/complete`. */
  elicitationComplete(gen: number, elicitationId: string): void;
}

/**
 * The client side of ACP — what comes in from the agent, in either version: `session/update`
 * notifications (mapped by ./normalize.ts, v2 through ./v2-updates.ts), `session/request_permission`
 * (a permission interrupt in the book, answered from the browser), URL elicitations (a device-code
 * login), and in v1 `fs/read_text_file` / `fs/write_text_file`, confined to the session's directory
 * (v2 has no client file system). `connect` wraps a fresh agent process's stdio in an ./link.ts link
 * whose SDK apps (v1 and v2) have these handlers; the handshake picks the version.
 */
export class AcpClient {
  constructor(private host: AcpClientHost) {}

  connect(p: SupervisedProcess): AcpLink {
    const gen = p.generation;
    const elicit = (params: unknown): CreateElicitationResponse => {
      const e = params as { mode?: unknown; url?: unknown; message?: unknown; elicitationId?: unknown };
      // only URL elicitations (a login's link): the console declares no form elicitation
      if (e.mode !== "url" || typeof e.url !== "string" || typeof e.elicitationId !== "string")
        return { action: "decline" };
      return this.host.elicitUrl(gen, { url: e.url, message: String(e.message ?? ""), elicitationId: e.elicitationId });
    };
    const v1 = () =>
      client({ name: "switchboard" })
        .onRequest(methods.client.session.requestPermission, (ctx) =>
          this.onPermission(gen, ctx.params.sessionId, ctx.signal, (rt, id) =>
            permissionRequest(rt.norm, ctx.params, id, Date.now()),
          ),
        )
        .onRequest(methods.client.fs.readTextFile, async (ctx) => ({
          content: await this.readTextFile(
            ctx.params.sessionId,
            ctx.params.path,
            ctx.params.line ?? undefined,
            ctx.params.limit ?? undefined,
          ),
        }))
        .onRequest(methods.client.fs.writeTextFile, async (ctx) => {
          await this.writeTextFile(ctx.params.sessionId, ctx.params.path, ctx.params.content);
          return {};
        })
        .onRequest(methods.client.elicitation.create, (ctx) => elicit(ctx.params))
        .onNotification(methods.client.elicitation.complete, (ctx) =>
          this.host.elicitationComplete(gen, ctx.params.elicitationId),
        )
        .onNotification(methods.client.session.update, (ctx) => this.onUpdate(gen, ctx.params, 1));
    const v2 = () =>
      acp2
        .client({ name: "switchboard" })
        .onRequest(acp2.methods.client.session.requestPermission, (ctx) =>
          this.onPermission(gen, ctx.params.sessionId, ctx.signal, (rt, id) =>
            v2PermissionRequest(rt.norm, ctx.params, id, Date.now()),
          ),
        )
        .onRequest(
          acp2.methods.client.elicitation.create,
          (ctx) => elicit(ctx.params) as acp2.CreateElicitationResponse,
        )
        .onNotification(acp2.methods.client.elicitation.complete, (ctx) =>
          this.host.elicitationComplete(gen, ctx.params.elicitationId),
        )
        .onNotification(acp2.methods.client.session.update, (ctx) => this.onUpdate(gen, ctx.params, 2));
    return new AcpLink(
      p,
      { v1, v2 },
      {
        ended: () => this.host.proc.connectionClosed(gen),
        dropped: (sessionId, kind) =>
          this.protocolError(
            gen,
            sessionId,
            `the agent sent a "${kind}" update that is not in ACP v2's shape (it was dropped)`,
          ),
        v1PromptResult: (sessionId) => {
          const rt = this.host.sessions.ofAgent(sessionId);
          if (rt && this.current(gen)) this.host.v1PromptResult(rt);
        },
      },
    );
  }

  private current(gen: number): boolean {
    const cur = this.host.proc.current;
    return !cur || cur.gen === gen;
  }

  private onUpdate(gen: number, params: { sessionId: string; update: unknown }, version: AcpVersion) {
    if (!this.current(gen)) return;
    const { sessions } = this.host;
    try {
      const rt = sessions.ofAgent(params.sessionId);
      if (!rt) return sessions.keepEarly({ sessionId: params.sessionId, update: params.update, version });
      const outcome = sessions.apply(rt, params.update, version);
      if (outcome && (outcome.ended || outcome.failed || outcome.protocolError)) this.host.v2Outcome(rt, outcome);
    } catch (err) {
      log.warn("skipped an ACP update that could not be applied", {
        backend: this.host.backendId,
        error: describeError(err),
      });
    }
  }

  /** A v2 message the SDK drops: reported on the session's turn once what came before it is applied. */
  private protocolError(gen: number, agentSessionId: string | undefined, message: string) {
    log.warn("ACP v2 protocol error", { backend: this.host.backendId, error: message });
    void drainIncoming().then(() => {
      const rt = agentSessionId ? this.host.sessions.ofAgent(agentSessionId) : undefined;
      if (rt && this.current(gen) && !rt.replay) this.host.v2Outcome(rt, { events: [], protocolError: message });
    });
  }

  /* ------------------------------------------------------------------ permissions */

  private onPermission(
    gen: number,
    agentSessionId: string,
    signal: AbortSignal,
    build: (rt: Runtime, interruptId: string) => ReturnType<typeof permissionRequest>,
  ): Promise<RequestPermissionResponse> {
    const { interrupts } = this.host;
    const rt = this.host.sessions.ofAgent(agentSessionId);
    if (!rt || this.host.proc.stopping) return Promise.resolve(CANCELLED);
    // Request ids start at 0 and repeat after a restart: interrupt ids are our own.
    const id = interrupts.newId();
    const r = build(rt, id);
    if (!r) {
      log.warn("permission request without usable options; answering cancelled", { backend: this.host.backendId });
      return Promise.resolve(CANCELLED);
    }
    return new Promise<RequestPermissionResponse>((resolve, reject) => {
      const refuse = (message: string) => reject(new Error(message));
      if (
        interrupts.raise({ sessionId: rt.id, interrupt: r.interrupt, epoch: gen, respond: resolve, refuse }, r.events)
          .refused
      )
        return;
      signal.addEventListener("abort", () => interrupts.settle(id, "cancelled", CANCELLED), { once: true });
    });
  }

  answerInterrupt(sessionId: string, interruptId: string, answer: InterruptAnswer): void {
    const { interrupts } = this.host;
    const p = interrupts.take(sessionId, interruptId);
    if ("dismiss" in answer) {
      interrupts.settle(interruptId, "cancelled", CANCELLED);
      return;
    }
    if (!("decision" in answer))
      throw ApiError.badRequest("A permission request is answered with {decision} or {dismiss: true}");
    const option = p.interrupt.permission?.options.find((o) => o.kind === answer.decision);
    if (!option) throw ApiError.badRequest(`This request offers no "${answer.decision}" option`);
    if (answer.message)
      log.info("ACP cannot pass a message with a permission answer; it is dropped", { backend: this.host.backendId });
    const rt = this.host.sessions.known(p.sessionId);
    if (rt && answer.decision === "reject" && p.interrupt.toolCallId) markRejected(rt.norm, p.interrupt.toolCallId);
    interrupts.settle(interruptId, answer.decision, { outcome: { outcome: "selected", optionId: option.id } });
  }

  /* ------------------------------------------------------------------ client-side fs */

  /**
   * Runs a file request of the agent's confined to its session's directory (../shared/files.ts:
   * absolute, inside after resolving links, never through a link that leads outside); a refusal is
   * the protocol's own error (resource not found, invalid params with the reason).
   */
  private async confined<T>(agentSessionId: string, p: string, run: (root: string) => Promise<T>): Promise<T> {
    const rt = this.host.sessions.ofAgent(agentSessionId);
    if (!rt) throw RequestError.sessionNotFound(agentSessionId);
    try {
      return await run(rt.cwd);
    } catch (err) {
      if (!(err instanceof ConfinedPathError)) throw err;
      throw err.reason === "not-found"
        ? RequestError.resourceNotFound(err.path)
        : RequestError.invalidParams({ path: p }, err.message);
    }
  }

  async readTextFile(agentSessionId: string, p: string, line?: number, limit?: number): Promise<string> {
    return textSlice(await this.confined(agentSessionId, p, (root) => readConfinedText(root, p)), line, limit);
  }

  async writeTextFile(agentSessionId: string, p: string, content: string): Promise<void> {
    await this.confined(agentSessionId, p, (root) => writeConfinedText(root, p, content));
  }
}
