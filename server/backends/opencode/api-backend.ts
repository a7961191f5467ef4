import "server-only";
import { limitErrorIn } from "../shared/bounded-body";
import { streamFetch } from "./timed-fetch";
import { isTextMime, parseDataUrl } from "@/lib/attachments";
import createClient, { type Client } from "openapi-fetch";
import { createParser } from "eventsource-parser";
import type { FileDiff, Interrupt, Message, ModelRef, Session, SessionStatus } from "@/lib/model";
import type { AgentList, CreateSessionBody, ModelList, PromptBody } from "@/lib/api";
import { capabilityReason } from "@/lib/capabilities";
import { ApiError, describeError, isApiError } from "../../errors";
import type { paths } from "./api/schema";
import {
  toApiAgentList,
  toApiFileDiffs,
  toApiMessage,
  toApiModelList,
  toApiPermission,
  toApiQuestion,
  toApiSession,
} from "./normalize-api";

export type ApiClient = Client<paths>;

/** What openapi-fetch hands back: the data, or the error body with the response. */
type Answer<T> = { data?: T; error?: unknown; response: Response };

/**
 * OpenCode's `/api/*` contract (OpenCode 2; 1.18 serves it beside V1), typed by the types generated
 * from the server's own OpenAPI document (./api/schema.d.ts). The adapter (./adapter.ts) calls it
 * for every REST operation when it speaks `/api`; the event stream is read by `events`.
 */
export class ApiBackend {
  readonly client: ApiClient;

  constructor(
    private baseUrl: string,
    private headers: Record<string, string>,
    fetchImpl: typeof fetch,
    private label: string,
    private backendId: string,
  ) {
    this.client = createClient<paths>({ baseUrl, headers, fetch: fetchImpl });
  }

  baseUrlIs(url: string | undefined): boolean {
    return url === this.baseUrl;
  }

  /** Maps a failed call: no answer → 503, 404 kept, 400 → 400, anything else → 502. */
  private async call<T>(fn: () => Promise<Answer<T>>): Promise<T> {
    let r: Answer<T>;
    try {
      r = await fn();
    } catch (err) {
      // A redirect, or an answer over its bound (./timed-fetch.ts): the server's fault, said plainly.
      const limit = limitErrorIn(err);
      if (limit) throw ApiError.upstream(limit.message);
      throw ApiError.down(`${this.label} is not reachable: ${describeError(err)}`);
    }
    if (r.response.ok) return r.data as T;
    const body = r.error;
    const msg =
      typeof body === "object" && body && "message" in body && typeof body.message === "string"
        ? body.message
        : JSON.stringify(body ?? r.response.statusText);
    if (r.response.status === 404) throw ApiError.notFound(msg);
    if (r.response.status === 400) throw ApiError.badRequest(`OpenCode rejected the request: ${msg}`);
    if (r.response.status === 409) throw ApiError.conflict(msg);
    // A route the server has but does not implement yet (1.18's compact): `ServiceUnavailableError`.
    const unavailable =
      r.response.status === 503 &&
      typeof body === "object" &&
      body &&
      "_tag" in body &&
      body._tag === "ServiceUnavailableError";
    const service = unavailable && "service" in body && typeof body.service === "string" ? body.service : undefined;
    throw ApiError.upstream(
      `OpenCode answered ${r.response.status}: ${msg}`,
      unavailable ? { unavailable: service ?? true } : undefined,
    );
  }

  private location(directory?: string) {
    return directory ? { location: { directory } } : {};
  }

  /* ------------------------------------------------------------------ sessions */

  /** The project of the backend's directory (the server's default location without one), read once. */
  private projectId: Promise<string> | undefined;

  private project(directory: string | undefined): Promise<string> {
    this.projectId ??= this.call(() =>
      this.client.GET("/api/location", { params: { query: this.location(directory) } }),
    ).then(
      (r) => r.project.id,
      (err: unknown) => {
        this.projectId = undefined; // asked again next time
        throw err;
      },
    );
    return this.projectId;
  }

  /**
   * One project's sessions, as V1 lists them (its instance is the backend directory's project):
   * `/api/session` alone lists every project's sessions on the server; `directory=` would keep
   * only the sessions made in that very directory, not those of its subdirectories.
   */
  async listSessions(
    q: {
      search?: string;
      limit: number;
      cursor?: string;
    },
    directory?: string,
  ): Promise<{ items: Session[]; nextCursor?: string }> {
    const project = await this.project(directory);
    const r = await this.call(() =>
      this.client.GET("/api/session", {
        params: {
          query: {
            limit: q.limit,
            order: "desc",
            project,
            ...(q.search ? { search: q.search } : {}),
            ...(q.cursor ? { cursor: q.cursor } : {}),
          },
        },
      }),
    );
    // Subagent sessions are listed with their parents (GET …/tree), not in the sidebar.
    const items = r.data.filter((s) => !s.parentID).map((s) => toApiSession(s, this.backendId));
    return { items, ...(r.data.length >= q.limit && r.cursor.next ? { nextCursor: r.cursor.next } : {}) };
  }

  async createSession(input: CreateSessionBody, directory: string | undefined): Promise<Session> {
    const dir = input.directory ?? directory;
    const r = await this.call(() =>
      this.client.POST("/api/session", {
        body: {
          ...(dir ? { location: { directory: dir } } : {}),
          ...(input.model ? { model: { id: input.model.id, providerID: input.model.provider ?? "" } } : {}),
        },
      }),
    );
    return toApiSession(r.data, this.backendId);
  }

  async getSession(sessionId: string): Promise<Session> {
    const r = await this.call(() =>
      this.client.GET("/api/session/{sessionID}", { params: { path: { sessionID: sessionId } } }),
    );
    return toApiSession(r.data, this.backendId);
  }

  /** Sessions running now (`/api/session/active`; absent ones are idle). */
  async statuses(): Promise<Record<string, { status: SessionStatus }>> {
    const r = await this.call(() => this.client.GET("/api/session/active"));
    return Object.fromEntries(Object.keys(r.data ?? {}).map((sid) => [sid, { status: "busy" as const }]));
  }

  /* ------------------------------------------------------------------ messages */

  async loadMessages(
    sessionId: string,
    q: { before?: string; limit: number },
  ): Promise<{ items: Message[]; nextCursor?: string }> {
    const r = await this.call(() =>
      this.client.GET("/api/session/{sessionID}/message", {
        params: {
          path: { sessionID: sessionId },
          query: { limit: q.limit, ...(q.before ? { cursor: q.before } : { order: "desc" }) },
        },
      }),
    );
    const items = r.data.flatMap((m) => {
      const msg = toApiMessage(m, sessionId);
      return msg ? [msg] : [];
    });
    items.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return { items, ...(r.data.length >= q.limit && r.cursor.next ? { nextCursor: r.cursor.next } : {}) };
  }

  async requireMessage(sessionId: string, messageId: string): Promise<void> {
    await this.call(() =>
      this.client.GET("/api/session/{sessionID}/message/{messageID}", {
        params: { path: { sessionID: sessionId, messageID: messageId } },
      }),
    );
  }

  /* ------------------------------------------------------------------ turns */

  async prompt(sessionId: string, body: PromptBody, session: Session): Promise<void> {
    const path = { sessionID: sessionId };
    if (
      body.model &&
      (body.model.id !== session.model?.id || (body.model.provider ?? "") !== (session.model?.provider ?? ""))
    ) {
      await this.call(() =>
        this.client.POST("/api/session/{sessionID}/model", {
          params: { path },
          body: { model: { id: body.model!.id, providerID: body.model!.provider ?? "" } },
        }),
      );
    }
    if (body.agent)
      await this.call(() =>
        this.client.POST("/api/session/{sessionID}/agent", { params: { path }, body: { agent: body.agent! } }),
      );
    // A staged revert is committed by the next prompt (as V1 does by itself).
    if (session.revert)
      await this.call(() => this.client.POST("/api/session/{sessionID}/revert/commit", { params: { path } }));
    const { text, files } = apiPrompt(body.parts);
    await this.call(() =>
      this.client.POST("/api/session/{sessionID}/prompt", {
        params: { path },
        body: { prompt: { text, ...(files.length ? { files } : {}) }, delivery: "queue" },
      }),
    );
  }

  async interrupt(sessionId: string): Promise<void> {
    await this.call(() =>
      this.client.POST("/api/session/{sessionID}/interrupt", { params: { path: { sessionID: sessionId } } }),
    );
  }

  /**
   * Set once the server has answered that it cannot compact: 1.18's `/api` has the route but answers
   * 503 `ServiceUnavailableError` ("Session compact is not available yet", service `session.compact`),
   * and an OpenCode 2 server has no V1 summarize to fall back on. The adapter then hides the action.
   */
  compactUnavailable = false;

  async compact(sessionId: string): Promise<void> {
    try {
      await this.call(() =>
        this.client.POST("/api/session/{sessionID}/compact", { params: { path: { sessionID: sessionId } } }),
      );
    } catch (err) {
      const unavailable = isApiError(err)
        ? (err.details as { unavailable?: unknown } | undefined)?.unavailable
        : undefined;
      if (unavailable !== "session.compact" && unavailable !== true) throw err;
      this.compactUnavailable = true;
      throw ApiError.conflict(
        `${capabilityReason(this.label, "compact")}: this OpenCode server's /api does not compact yet (${err instanceof Error ? err.message : "503"})`,
        { capability: "compact" },
      );
    }
  }

  async revertStage(sessionId: string, messageId: string): Promise<FileDiff[]> {
    const r = await this.call(() =>
      this.client.POST("/api/session/{sessionID}/revert/stage", {
        params: { path: { sessionID: sessionId } },
        body: { messageID: messageId, files: true },
      }),
    );
    return toApiFileDiffs(r.data.files);
  }

  async revertClear(sessionId: string): Promise<void> {
    await this.call(() =>
      this.client.POST("/api/session/{sessionID}/revert/clear", { params: { path: { sessionID: sessionId } } }),
    );
  }

  /* ------------------------------------------------------------------ interrupts */

  async pending(directory: string | undefined): Promise<Interrupt[]> {
    const query = this.location(directory);
    const [perms, questions] = await Promise.all([
      this.call(() => this.client.GET("/api/permission/request", { params: { query } })),
      this.call(() => this.client.GET("/api/question/request", { params: { query } })),
    ]);
    return [...perms.data.map((p) => toApiPermission(p)), ...questions.data.flatMap((q) => toApiQuestion(q) ?? [])];
  }

  async replyPermission(
    sessionId: string,
    requestId: string,
    reply: "once" | "always" | "reject",
    message?: string,
  ): Promise<void> {
    await this.call(() =>
      this.client.POST("/api/session/{sessionID}/permission/{requestID}/reply", {
        params: { path: { sessionID: sessionId, requestID: requestId } },
        body: { reply, ...(message ? { message } : {}) },
      }),
    );
  }

  async replyQuestion(sessionId: string, requestId: string, answers: string[][]): Promise<void> {
    await this.call(() =>
      this.client.POST("/api/session/{sessionID}/question/{requestID}/reply", {
        params: { path: { sessionID: sessionId, requestID: requestId } },
        body: { answers },
      }),
    );
  }

  async rejectQuestion(sessionId: string, requestId: string): Promise<void> {
    await this.call(() =>
      this.client.POST("/api/session/{sessionID}/question/{requestID}/reject", {
        params: { path: { sessionID: sessionId, requestID: requestId } },
      }),
    );
  }

  /** The rules "always" saved on this server, as `action: resource`, as last read (undefined: not yet). */
  saved: string[] | undefined;

  /** Reads the rules "always" saved (`/api/permission/saved`); true when the list differs from the last read. */
  async readSavedRules(): Promise<boolean> {
    const r = await this.call(() => this.client.GET("/api/permission/saved"));
    const rules = r.data.map((s) => `${s.action}: ${s.resource}`);
    if (this.saved && rules.join("\n") === this.saved.join("\n")) return false;
    this.saved = rules;
    return true;
  }

  /* ------------------------------------------------------------------ catalog */

  async models(directory: string | undefined): Promise<ModelList> {
    const query = this.location(directory);
    const [models, providers, agents] = await Promise.all([
      this.call(() => this.client.GET("/api/model", { params: { query } })),
      this.call(() => this.client.GET("/api/provider", { params: { query } })),
      this.call(() => this.client.GET("/api/agent", { params: { query } })).catch(() => undefined),
    ]);
    const build = agents?.data.find((a) => a.id === "build")?.model;
    return toApiModelList(
      models.data,
      providers.data,
      build ? { provider: build.providerID, id: build.id } : undefined,
    );
  }

  async agents(directory: string | undefined): Promise<AgentList> {
    const r = await this.call(() => this.client.GET("/api/agent", { params: { query: this.location(directory) } }));
    return toApiAgentList(r.data);
  }

  /** `GET /api/fs/find`: files (not directories) matching `query`, ranked by OpenCode, under `directory`. */
  async findFiles(query: string, limit: number, directory: string | undefined): Promise<string[]> {
    const r = await this.call(() =>
      this.client.GET("/api/fs/find", {
        params: { query: { query, type: "file", limit: String(limit), ...this.location(directory) } },
      }),
    );
    return r.data.filter((e) => e.type === "file").map((e) => e.path);
  }

  async commands(directory: string | undefined): Promise<{ name: string; description?: string }[]> {
    const r = await this.call(() => this.client.GET("/api/command", { params: { query: this.location(directory) } }));
    return r.data.map((c) => ({ name: c.name, ...(c.description ? { description: c.description } : {}) }));
  }

  /* ------------------------------------------------------------------ events */

  /**
   * Reads `/api/event` until it ends or `signal` aborts, resuming after `lastEventId` when given.
   * `onChunk` sees every chunk (heartbeats included, for the watchdog); `onFrame` every parsed frame.
   */
  async events(opts: {
    signal: AbortSignal;
    lastEventId?: string;
    onChunk(): void;
    onFrame(frame: unknown, id: string | undefined): void;
  }): Promise<void> {
    // Over node:http, aborted by the signal for certain (./timed-fetch.ts, `streamFetch`).
    const res = await streamFetch(opts.signal)(`${this.baseUrl}/api/event`, {
      headers: {
        ...this.headers,
        accept: "text/event-stream",
        ...(opts.lastEventId ? { "last-event-id": opts.lastEventId } : {}),
      },
      signal: opts.signal,
    });
    if (!res.ok || !res.body) {
      await res.body?.cancel();
      throw new Error(`GET /api/event answered ${res.status}`);
    }
    const parser = createParser({
      onEvent: (ev) => {
        let frame: unknown;
        try {
          frame = JSON.parse(ev.data);
        } catch {
          return;
        }
        opts.onFrame(frame, ev.id);
      },
    });
    const decoder = new TextDecoder();
    const reader = res.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      opts.onChunk();
      parser.feed(decoder.decode(value, { stream: true }));
    }
  }
}

export type { ModelRef };

/**
 * A prompt's parts as /api takes them: the text, and the files by URI. A text file the user attached
 * goes as text, named, after what they typed: OpenCode 1.18's /api hands every file to the provider
 * as media, and its OpenAI Chat lowering takes images only ("does not support media type
 * text/markdown"), so the turn would fail (the same reason mentions go as text, capabilities.ts).
 */
export function apiPrompt(parts: PromptBody["parts"]): { text: string; files: { uri: string; name?: string }[] } {
  const texts: string[] = [];
  const files: { uri: string; name?: string }[] = [];
  for (const p of parts) {
    if (p.type === "text") {
      texts.push(p.text);
      continue;
    }
    const d = parseDataUrl(p.url);
    if (d && isTextMime(d.mime)) {
      const name = (p.filename ?? "file").replace(/["\n]/g, "");
      texts.push(`<file name="${name}">\n${Buffer.from(d.base64, "base64").toString("utf8")}\n</file>`);
    } else files.push({ uri: p.url, ...(p.filename ? { name: p.filename } : {}) });
  }
  return { text: texts.join("\n\n"), files };
}
