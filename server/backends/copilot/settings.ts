import "server-only";
import type { ModelRef, Session, SessionOption, TimelineEvent } from "@/lib/model";
import { ApiError, describeError } from "../../errors";
import { log } from "../../log";
import type { ModelInfo } from "../types";
import { type CopilotAdapterOptions, configuredModel } from "./config";
import type { CopilotConnection } from "./connection";
import { ModelsResult, mapRpcError, parseResult } from "./rpc";
import type { Runtime } from "./runtime";
import { MODES, REASONING_EFFORTS, sessionOptions } from "./session-options";
import type { CopilotSessions } from "./sessions";

/** A session's model, reasoning effort and mode, and the models there are to choose from. */
export class CopilotSettings {
  constructor(
    private backendId: string,
    private opts: CopilotAdapterOptions,
    private cli: CopilotConnection,
    private sessions: CopilotSessions,
    private publish: (sessionId: string, events: TimelineEvent[]) => void,
  ) {}

  private options(rt: Runtime): SessionOption[] {
    return sessionOptions(rt, this.opts.model);
  }

  async switchModel(rt: Runtime, modelId: string) {
    const c = await this.sessions.attach(rt);
    try {
      await c.conn.request("session.model.switchTo", { sessionId: rt.id, modelId });
    } catch (err) {
      throw mapRpcError(err, `switch to ${modelId}`, this.opts.label);
    }
    rt.settings.model = modelId;
    rt.tl.session = { ...rt.tl.session, model: { id: modelId }, settings: { options: this.options(rt) } };
  }

  async setOption(sessionId: string, optionId: string, value: string | boolean): Promise<Session> {
    const rt = await this.sessions.known(sessionId);
    if (typeof value !== "string") throw ApiError.badRequest(`${optionId} takes one of its choices`);
    const opt = this.options(rt).find((o) => o.id === optionId);
    if (!opt) throw ApiError.notFound(`Unknown session option: ${optionId}`);
    if (optionId === "model") {
      await this.switchModel(rt, value);
    } else if (optionId === "reasoningEffort") {
      if (!(REASONING_EFFORTS as readonly string[]).includes(value))
        throw ApiError.badRequest(`Not a reasoning effort: ${value}`);
      const c = await this.sessions.attach(rt);
      await c.conn
        .request("session.model.setReasoningEffort", { sessionId: rt.id, reasoningEffort: value })
        .catch((err: unknown) => {
          throw mapRpcError(err, "change the reasoning effort", this.opts.label);
        });
      rt.settings.reasoningEffort = value;
    } else {
      if (!MODES.some((m) => m.value === value)) throw ApiError.badRequest(`Not a mode: ${value}`);
      const c = await this.sessions.attach(rt);
      await c.conn.request("session.mode.set", { sessionId: rt.id, mode: value }).catch((err: unknown) => {
        throw mapRpcError(err, "change the mode", this.opts.label);
      });
      rt.settings.mode = value;
    }
    rt.tl.session = { ...rt.tl.session, settings: { options: this.options(rt) } };
    const s = this.sessions.sessionOf(rt);
    this.publish(rt.id, [{ type: "session.updated", session: s }]);
    return s;
  }

  /**
   * `session.mode_changed` (`{previousMode, newMode}`, @github/copilot 1.0.102
   * copilot-sdk/generated/session-events.d.ts `ModeChangedData`): the session's mode as the CLI
   * has it now; a mode the console does not offer is ignored.
   */
  modeChanged(rt: Runtime, mode: unknown) {
    if (typeof mode !== "string" || !MODES.some((m) => m.value === mode) || rt.settings.mode === mode) return;
    rt.settings.mode = mode;
    rt.tl.session = { ...rt.tl.session, settings: { options: this.options(rt) } };
    this.publish(rt.id, [{ type: "session.updated", session: this.sessions.sessionOf(rt) }]);
  }

  /** Copilot's models for the logged-in user; with a provider (no GitHub login), the configured model. */
  async models(): Promise<{ items: ModelInfo[]; default?: ModelRef }> {
    const configured = configuredModel(this.opts);
    const provider = this.opts.provider ? this.opts.provider.type : "copilot";
    if (!this.opts.provider && this.cli.loggedIn) {
      try {
        const res = parseResult(ModelsResult, await this.cli.call("list models", "models.list", {}), "models.list");
        const items = (res.models ?? []).map((m) => ({
          provider,
          providerLabel: "GitHub Copilot",
          id: m.id,
          label: m.name ?? m.id,
          ...(m.id === configured ? { isDefault: true } : {}),
        }));
        if (items.length) return { items, ...(configured ? { default: { provider, id: configured } } : {}) };
      } catch (err) {
        log.warn("models.list failed; offering the configured model", {
          backend: this.backendId,
          error: describeError(err),
        });
      }
    }
    const id = configured ?? "gpt-4.1";
    return { items: [{ provider, id, label: id, isDefault: true }], default: { provider, id } };
  }
}
