import "server-only";
import { limitErrorIn } from "../shared/bounded-body";
import createClient, { type Client } from "openapi-fetch";
import type { FileDiff, Interrupt, Message, ModelRef, Session, SessionStatus } from "@/lib/model";
import type { AgentList, CreateSessionBody, InterruptAnswer, ModelList, PromptBody } from "@/lib/api";
import { capabilityReason } from "@/lib/capabilities";
import { ApiError, describeError, isApiError } from "../../errors";
import type { paths } from "./api/schema";
import { readApiEvents, type ApiEventsOptions } from "./api-event-reader";
import { type FormBook, formReply } from "./api-forms";
import { apiPrompt } from "./api-prompt";
import type { ApiGeneration } from "./contract";
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
  /** The generation of the server's `/api` (./contract.ts): upstream main's adds forms and the directory header. */
  readonly generation: ApiGeneration;

  constructor(
    private baseUrl: string,
    private headers: Record<string, string>,
    private fetchImpl: typeof fetch,
    private label: string,
    private backendId: string,
    private options: {
      generation?: ApiGeneration;
      /** Where the forms asked are kept, to answer them by (upstream main). */
      forms?: FormBook;
      /** The backend's directory: the project the event stream is asked for (upstream main). */
      directory?: string;
    } = {},
  ) {
    this.client = createClient<paths>({ baseUrl, headers, fetch: fetchImpl });
    this.generation = options.generation ?? "1.18";
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

  /**
   * Upstream main takes the location from the `location[directory]` query, else from an
   * `x-opencode-directory` header (anomalyco/opencode packages/opencode/src/server/routes/instance/
   * httpapi/groups/v2/location.ts at 0cab11f26bc7b4aef3ab14cb5b5293d63ef6a1ef, read as sent, not
   * decoded), as its SDK sends it on every request (packages/sdk/js/src/v2/client.ts at 675b22b1):
   * on that generation the directory goes in the header too, and it is the only place the event
   * stream (which takes no query) can be told the project. A header carries printable ASCII only:
   * a directory with other characters is left to the query.
   */
  private directoryHeader(directory?: string): Record<string, string> {
    if (this.generation !== "2" || !directory || !/^[\x20-\x7e]+$/.test(directory)) return {};
    return { "x-opencode-directory": directory };
  }

  /**
   * A call to a route the pinned 1.18's types (./api/schema.d.ts) do not have: upstream main's forms
   * (types.gen.ts at ac9ce832: `GET /api/form/request`, `POST /api/session/{s}/form/{f}/reply` and
   * `…/cancel`). Same fetch, bounds and error mapping as the typed calls.
   */
  private async untyped<T>(
    method: "GET" | "POST",
    path: string,
    opts: { query?: Record<string, string>; body?: unknown; directory?: string } = {},
  ): Promise<T> {
    return this.call<T>(async () => {
      const url = new URL(`${this.baseUrl}${path}`);
      for (const [k, v] of Object.entries(opts.query ?? {})) url.searchParams.set(k, v);
      const response = await this.fetchImpl(url, {
        method,
        headers: {
          ...this.headers,
          ...this.directoryHeader(opts.directory),
          ...(opts.body !== undefined ? { "content-type": "application/json" } : {}),
        },
        ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {}),
      });
      const text = response.status === 204 ? "" : await response.text();
      let parsed: unknown;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        parsed = text;
      }
      return response.ok ? { data: parsed as T, response } : { error: parsed, response };
    });
  }

  /* ------------------------------------------------------------------ sessions */

  /** The project of the backend's directory (the server's default location without one), read once. */
  private projectId: Promise<string> | undefined;

  private project(directory: string | undefined): Promise<string> {
    this.projectId ??= this.call(() =>
      this.client.GET("/api/location", {
        params: { query: this.location(directory) },
        headers: this.directoryHeader(directory),
      }),
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
        headers: this.directoryHeader(directory),
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
    const headers = this.directoryHeader(directory);
    const [perms, questions, forms] = await Promise.all([
      this.call(() => this.client.GET("/api/permission/request", { params: { query }, headers })),
      this.call(() => this.client.GET("/api/question/request", { params: { query }, headers })),
      // Upstream main's forms (`V2FormRequestListData`); 1.18 has none.
      this.generation === "2"
        ? this.untyped<{ data?: unknown }>("GET", "/api/form/request", {
            query: directory ? { "location[directory]": directory } : {},
            directory,
          })
        : Promise.resolve({ data: [] }),
    ]);
    const formList = Array.isArray(forms?.data) ? forms.data : [];
    return [
      ...perms.data.map((p) => toApiPermission(p)),
      ...questions.data.flatMap((q) => toApiQuestion(q) ?? []),
      ...formList.flatMap((f) => this.options.forms?.interrupt(f) ?? []),
    ];
  }

  /** Whether `requestId` is a form this console saw (upstream main): answered through the form's routes. */
  isForm(requestId: string): boolean {
    return this.options.forms?.get(requestId) !== undefined;
  }

  /**
   * Answers a form (upstream main): `POST /api/session/{s}/form/{f}/reply {answer}` with the chosen
   * options' values, or `…/cancel` for a dismissal or a declined form. 400 when the answer does not fit.
   */
  async answerForm(sessionId: string, formId: string, answer: InterruptAnswer): Promise<"answered" | "cancelled"> {
    const form = this.options.forms?.get(formId);
    if (!form) throw ApiError.notFound(`Unknown form: ${formId}`);
    const reply = formReply(form, answer);
    const path = `/api/session/${encodeURIComponent(sessionId)}/form/${encodeURIComponent(formId)}`;
    if (reply === "cancel") {
      await this.untyped("POST", `${path}/cancel`);
      return "cancelled";
    }
    await this.untyped("POST", `${path}/reply`, { body: reply });
    return "answered";
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
    const headers = this.directoryHeader(directory);
    const [models, providers, agents] = await Promise.all([
      this.call(() => this.client.GET("/api/model", { params: { query }, headers })),
      this.call(() => this.client.GET("/api/provider", { params: { query }, headers })),
      this.call(() => this.client.GET("/api/agent", { params: { query }, headers })).catch(() => undefined),
    ]);
    const build = agents?.data.find((a) => a.id === "build")?.model;
    return toApiModelList(
      models.data,
      providers.data,
      build ? { provider: build.providerID, id: build.id } : undefined,
    );
  }

  async agents(directory: string | undefined): Promise<AgentList> {
    const r = await this.call(() =>
      this.client.GET("/api/agent", {
        params: { query: this.location(directory) },
        headers: this.directoryHeader(directory),
      }),
    );
    return toApiAgentList(r.data);
  }

  /** `GET /api/fs/find`: files (not directories) matching `query`, ranked by OpenCode, under `directory`. */
  async findFiles(query: string, limit: number, directory: string | undefined): Promise<string[]> {
    const r = await this.call(() =>
      this.client.GET("/api/fs/find", {
        headers: this.directoryHeader(directory),
        params: { query: { query, type: "file", limit: String(limit), ...this.location(directory) } },
      }),
    );
    return r.data.filter((e) => e.type === "file").map((e) => e.path);
  }

  async commands(directory: string | undefined): Promise<{ name: string; description?: string }[]> {
    const r = await this.call(() =>
      this.client.GET("/api/command", {
        params: { query: this.location(directory) },
        headers: this.directoryHeader(directory),
      }),
    );
    return r.data.map((c) => ({ name: c.name, ...(c.description ? { description: c.description } : {}) }));
  }

  /* ------------------------------------------------------------------ events */

  /**
   * Reads `/api/event` until it ends or `signal` aborts, resuming after `lastEventId` when given.
   * `onChunk` sees every chunk (heartbeats included, for the watchdog); `onFrame` every parsed frame.
   */
  async events(opts: ApiEventsOptions): Promise<void> {
    return readApiEvents(
      `${this.baseUrl}/api/event`,
      { ...this.headers, ...this.directoryHeader(this.options.directory) },
      opts,
    );
  }
}

export type { ModelRef };
