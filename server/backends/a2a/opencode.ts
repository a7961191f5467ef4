import "server-only";
import type { InterruptAnswer, ModelInfo } from "@/lib/api";
import type { Interrupt, Message, ModelRef, Session } from "@/lib/model";
import { ApiError } from "../../errors";
import { questionAnswers } from "../shared/answers";
import { arr, num, obj, str } from "../shared/values";
import { OPENCODE_METHODS as M, supports } from "./card";
import type { A2aConnection } from "./client";
import { historyMessages, listedSession, mergeHistory, recoveredAsk } from "./listings";
import type { InterruptAsk } from "./normalize";

/** The largest history page opencode-a2a answers. */
export const MAX_HISTORY_PAGE = 100;

/**
 * The opencode-a2a extension methods the adapter uses (docs/backends/a2a.md, "The opencode-a2a
 * profile"), each checked against the card's wire contract: sessions and history pages, models,
 * pending interrupts, and the interrupt replies.
 */
export class OpencodeOps {
  constructor(
    private conn: A2aConnection,
    private backendId: string,
  ) {}

  can(method: string): boolean {
    return supports(this.conn.profile, method);
  }

  /** `opencode.sessions.list` (newest 100). */
  async sessions(): Promise<Session[]> {
    if (!this.can(M.sessions)) return [];
    const res = obj(await this.conn.call(M.sessions, { limit: 100 }));
    const now = Date.now();
    return arr(res.items).flatMap((t) => {
      const s = listedSession(t, this.backendId, now);
      return s ? [s] : [];
    });
  }

  /**
   * A page of the history of `ocSession` (`opencode.sessions.messages.list`, cursor paged), merged
   * with the messages the console saw live (`kept`): ids are OpenCode's on both sides.
   */
  async history(
    ocSession: string,
    sessionId: string,
    q: { limit: number; before?: string },
    kept: readonly Message[],
  ): Promise<{ items: Message[]; nextCursor?: string }> {
    // opencode-a2a refuses pages over 100 (826cff1, contracts/extensions.py SESSION_QUERY_MAX_LIMIT).
    const res = obj(
      await this.conn.call(M.messages, {
        session_id: ocSession,
        limit: Math.max(1, Math.min(q.limit, MAX_HISTORY_PAGE)),
        ...(q.before ? { before: q.before } : {}),
      }),
    );
    const listed = historyMessages(res.items, sessionId, 0);
    const items = mergeHistory(listed, kept);
    const cursor = str(res.next_cursor);
    return { items, ...(cursor ? { nextCursor: cursor } : {}) };
  }

  /** Whether the agent has the session (a one-message history read; 404 otherwise). */
  async exists(ocSession: string): Promise<boolean> {
    await this.conn.call(M.messages, { session_id: ocSession, limit: 1 });
    return true;
  }

  /** `opencode.models.list` as the console's models. */
  async models(): Promise<{ items: ModelInfo[]; default?: ModelRef }> {
    const res = obj(await this.conn.call(M.models, {}));
    const listed = arr(res.connected).filter((p): p is string => typeof p === "string");
    const connected = Array.isArray(res.connected) ? new Set(listed) : undefined;
    let dflt: ModelRef | undefined;
    const items = arr(res.items).flatMap((raw): ModelInfo[] => {
      const m = obj(raw);
      const provider = str(m.provider_id);
      const id = str(m.model_id);
      // A model of a provider that is not connected (no credentials) cannot answer: not offered.
      if (!provider || !id || m.connected === false || (connected && !connected.has(provider))) return [];
      if (m.default === true && !dflt) dflt = { provider, id };
      const window = num(m.context_window);
      return [
        {
          provider,
          id,
          label: str(m.name) ?? id,
          ...(m.default === true ? { isDefault: true } : {}),
          ...(window ? { contextWindow: window } : {}),
        },
      ];
    });
    if (!dflt) {
      const byProvider = obj(res.default_by_provider);
      const [p, mid] = Object.entries(byProvider).find(([p]) => !connected || connected.has(p)) ?? [];
      if (p && typeof mid === "string") dflt = { provider: p, id: mid };
    }
    return { items, ...(dflt ? { default: dflt } : {}) };
  }

  /** Pending permissions and questions of this caller (`opencode.permissions.list`, `opencode.questions.list`). */
  async pending(): Promise<{ ask: InterruptAsk; sessionId: string; taskId?: string; expiresAt?: number }[]> {
    const lists = await Promise.all(
      [M.permissions, M.questions].filter((m) => this.can(m)).map((m) => this.conn.call(m, {})),
    );
    return lists.flatMap((l) =>
      arr(obj(l).items).flatMap((item) => {
        const r = recoveredAsk(item);
        return r ? [r] : [];
      }),
    );
  }

  /** Answers a permission or question interrupt through `a2a.interrupt.*`; returns the outcome. */
  async answer(it: Interrupt, requestId: string, answer: InterruptAnswer): Promise<string> {
    if (it.kind === "permission") {
      if ("dismiss" in answer) {
        await this.conn.call(M.permissionReply, { request_id: requestId, reply: "reject" });
        return "reject";
      }
      if (!("decision" in answer))
        throw ApiError.badRequest("A permission request is answered with {decision} or {dismiss: true}");
      const reply =
        answer.decision === "allow_once" ? "once" : answer.decision === "allow_always" ? "always" : "reject";
      await this.conn.call(M.permissionReply, {
        request_id: requestId,
        reply,
        ...(answer.message ? { message: answer.message } : {}),
      });
      return answer.decision;
    }
    if ("dismiss" in answer) {
      await this.conn.call(M.questionReject, { request_id: requestId });
      return "dismissed";
    }
    const answers = questionAnswers(it, answer);
    await this.conn.call(M.questionReply, { request_id: requestId, answers });
    return "answered";
  }
}
