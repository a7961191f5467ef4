import "server-only";
import {
  client,
  methods,
  ndJsonStream,
  RequestError,
  type AnyMessage,
  type CreateElicitationResponse,
  type ClientConnection,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
} from "@agentclientprotocol/sdk";
import type { InterruptAnswer } from "@/lib/api";
import type { TimelineEvent } from "@/lib/model";
import { ApiError, describeError } from "../../errors";
import { log } from "../../log";
import type { SupervisedProcess } from "../../processes/supervisor";
import type { AgentProcess } from "../shared/agent-process";
import { ConfinedPathError, readConfinedText, textSlice, writeConfinedText } from "../shared/files";
import type { InterruptBook } from "../shared/interrupts";
import { applyUpdate, markRejected, permissionRequest } from "./normalize";
import type { AcpSessions, Runtime } from "./sessions";
import { CANCELLED } from "./turns";

/** What the client side needs of the adapter. */
export interface AcpClientHost {
  backendId: string;
  sessions: AcpSessions;
  interrupts: InterruptBook<RequestPermissionResponse>;
  proc: AgentProcess<ClientConnection>;
  emit(rt: Runtime, events: TimelineEvent[]): void;
  /** A URL elicitation (`elicitation/create`, mode `url`): a device-code login's link and code. */
  elicitUrl(gen: number, params: { url: string; message: string; elicitationId: string }): CreateElicitationResponse;
  /** `elicitation/complete`. */
  elicitationComplete(gen: number, elicitationId: string): void;
}

/**
 * The client side of ACP — what comes in from the agent: `session/update` notifications (mapped by
 * ./normalize.ts), `session/request_permission` (a permission interrupt in the book, answered from
 * the browser), and `fs/read_text_file` / `fs/write_text_file`, confined to the session's directory.
 * `connect` wraps a fresh agent process's stdio in the SDK's connection with these handlers.
 */
export class AcpClient {
  /** The raw `initialize` result per process generation (the SDK's schema drops `env_var` methods' fields). */
  private rawInit = new Map<number, unknown>();

  constructor(private host: AcpClientHost) {}

  /** The raw `initialize` result of `gen` (once: it is forgotten). */
  takeRawInit(gen: number): unknown {
    const raw = this.rawInit.get(gen);
    this.rawInit.delete(gen);
    return raw;
  }

  connect(p: SupervisedProcess): ClientConnection {
    const gen = p.generation;
    const app = client({ name: "switchboard" })
      .onRequest(methods.client.session.requestPermission, (ctx) => this.onPermission(gen, ctx.params, ctx.signal))
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
      .onRequest(methods.client.elicitation.create, (ctx): CreateElicitationResponse => {
        const p = ctx.params as { mode?: unknown; url?: unknown; message?: unknown; elicitationId?: unknown };
        // only URL elicitations (a login's link): the console declares no form elicitation
        if (p.mode !== "url" || typeof p.url !== "string" || typeof p.elicitationId !== "string")
          return { action: "decline" };
        return this.host.elicitUrl(gen, {
          url: p.url,
          message: String(p.message ?? ""),
          elicitationId: p.elicitationId,
        });
      })
      .onNotification(methods.client.elicitation.complete, (ctx) =>
        this.host.elicitationComplete(gen, ctx.params.elicitationId),
      )
      .onNotification(methods.client.session.update, (ctx) => this.onUpdate(gen, ctx.params));
    const stream = ndJsonStream(p.stdin, p.stdout);
    const tap = new TransformStream<AnyMessage, AnyMessage>({
      transform: (m, c) => {
        if (
          !this.rawInit.has(gen) &&
          "result" in m &&
          m.result &&
          typeof m.result === "object" &&
          "protocolVersion" in m.result
        )
          this.rawInit.set(gen, m.result);
        c.enqueue(m);
      },
    });
    const conn = app.connect({ writable: stream.writable, readable: stream.readable.pipeThrough(tap) });
    void conn.closed.then(() => this.host.proc.connectionClosed(gen));
    return conn;
  }

  private onUpdate(gen: number, params: SessionNotification) {
    const cur = this.host.proc.current;
    if (cur && cur.gen !== gen) return;
    const { sessions } = this.host;
    try {
      const rt = sessions.ofAgent(params.sessionId);
      if (!rt) return sessions.keepEarly(params);
      if (rt.replay) {
        if (!rt.replay.discard) rt.replay.events.push(...applyUpdate(rt.replay.norm, params.update, Date.now()));
        return;
      }
      this.host.emit(rt, applyUpdate(rt.norm, params.update, Date.now()));
    } catch (err) {
      log.warn("skipped an ACP update that could not be applied", {
        backend: this.host.backendId,
        error: describeError(err),
      });
    }
  }

  /* ------------------------------------------------------------------ permissions */

  private onPermission(
    gen: number,
    params: RequestPermissionRequest,
    signal: AbortSignal,
  ): Promise<RequestPermissionResponse> {
    const { interrupts } = this.host;
    const rt = this.host.sessions.ofAgent(params.sessionId);
    if (!rt || this.host.proc.stopping) return Promise.resolve(CANCELLED);
    // Request ids start at 0 and repeat after a restart: interrupt ids are our own.
    const id = interrupts.newId();
    const r = permissionRequest(rt.norm, params, id, Date.now());
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
