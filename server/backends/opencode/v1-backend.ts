import "server-only";
import { createOpencodeClient, type OpencodeClient } from "@opencode-ai/sdk/v2/client";
import type { AgentList, CreateSessionBody, ModelList, PromptBody } from "@/lib/api";
import type { FileDiff, Interrupt, Message, Session } from "@/lib/model";
import { ApiError, describeError, isApiError } from "../../errors";
import { limitErrorIn } from "../shared/bounded-body";
import { toAgentList, toModelList } from "./catalog";
import { toPermissionInterrupt, toQuestionInterrupt } from "./interrupts";
import { toFileDiffs, toMessage } from "./messages";

/** The SDK client of a server (`directory`: the default one of calls that name none). */
export function createV1Client(
  baseUrl: string,
  headers: Record<string, string>,
  directory: string | undefined,
  fetch: typeof globalThis.fetch,
): OpencodeClient {
  return createOpencodeClient({ baseUrl, headers, throwOnError: true, ...(directory ? { directory } : {}), fetch });
}

type Result<T> = { data?: T; error?: unknown; response?: Response };

export interface V1BackendOptions {
  label: string;
  /** The SDK client of the current server (undefined until the adapter has connected). */
  client(): OpencodeClient | undefined;
  /** Each known session's directory: every call about a session is scoped to it. */
  directories: ReadonlyMap<string, string>;
  /** A session as the adapter keeps it (malformed: an error). */
  toSession(raw: unknown): Session;
}

/**
 * OpenCode's V1 routes through `@opencode-ai/sdk` (docs/backends/opencode.md): what the adapter
 * (./adapter.ts) calls when it speaks V1, as ./api-backend.ts holds the `/api` calls. Every call
 * about a session is scoped to its directory; failures are mapped to the console's errors.
 */
export class V1Backend {
  constructor(private opts: V1BackendOptions) {}

  /** The server's version (`/global/health`), informative: read within `timeoutMs`. */
  static async version(client: OpencodeClient, timeoutMs: number): Promise<string | undefined> {
    const health = await client.global.health({ signal: AbortSignal.timeout(timeoutMs) });
    return (health.data as { version?: string } | undefined)?.version;
  }

  private api(): OpencodeClient {
    const client = this.opts.client();
    if (!client) throw ApiError.down(`${this.opts.label} is starting`);
    return client;
  }

  /** Runs an SDK call and maps failures: no answer → 503, upstream error → 502 (404 kept). */
  private async call<T>(fn: () => Promise<Result<T>>): Promise<T> {
    try {
      const r = await fn();
      return r.data as T;
    } catch (err) {
      if (isApiError(err)) throw err;
      // A redirect, or an answer over its bound (./timed-fetch.ts): the server's fault, said plainly.
      const limit = limitErrorIn(err);
      if (limit) throw ApiError.upstream(limit.message);
      const cause = (err as { cause?: { status?: number } }).cause;
      const status = cause?.status;
      const msg = describeError(err);
      if (status === 404 || /\bnot found\b/i.test(msg)) throw ApiError.notFound(msg);
      if (status === 400) throw ApiError.badRequest(`OpenCode rejected the request: ${msg}`);
      if (status) throw ApiError.upstream(`OpenCode answered ${status}: ${msg}`);
      throw ApiError.down(`${this.opts.label} is not reachable: ${msg}`);
    }
  }

  private dir(sessionId: string) {
    const d = this.opts.directories.get(sessionId);
    return d ? { directory: d } : {};
  }

  /** Every session's live status (`/session/status`; idle ones are left out). */
  liveStatuses(): Promise<unknown> {
    return this.call(() => this.opts.client()!.session.status());
  }

  /** One directory's pending permissions and questions. */
  async pending(directory: string | undefined): Promise<Interrupt[]> {
    const q = directory ? { directory } : undefined;
    const api = this.api();
    const [perms, questions] = await Promise.all([
      this.call(() => api.permission.list(q)),
      this.call(() => api.question.list(q)),
    ]);
    return [
      ...((perms ?? []) as unknown[]).flatMap((p) => toPermissionInterrupt(p) ?? []),
      ...((questions ?? []) as unknown[]).flatMap((x) => toQuestionInterrupt(x) ?? []),
    ];
  }

  async listSessions(q: { search?: string; limit: number; cursor?: string }) {
    const offset = q.cursor ? Number.parseInt(Buffer.from(q.cursor, "base64url").toString(), 10) || 0 : 0;
    const raw = await this.call(() =>
      this.api().session.list({ roots: true, limit: offset + q.limit + 1, ...(q.search ? { search: q.search } : {}) }),
    );
    const all = ((raw ?? []) as unknown[]).map((s) => this.opts.toSession(s)).sort((a, b) => b.updatedAt - a.updatedAt);
    const items = all.slice(offset, offset + q.limit);
    const more = all.length > offset + q.limit;
    return { items, ...(more ? { nextCursor: Buffer.from(String(offset + q.limit)).toString("base64url") } : {}) };
  }

  async createSession(input: CreateSessionBody): Promise<Session> {
    const raw = await this.call(() =>
      this.api().session.create({
        ...(input.title ? { title: input.title } : {}),
        ...(input.directory ? { directory: input.directory } : {}),
        ...(input.model ? { model: { id: input.model.id, providerID: input.model.provider ?? "" } } : {}),
      }),
    );
    return this.opts.toSession(raw);
  }

  async getSession(sessionId: string): Promise<Session> {
    return this.opts.toSession(
      await this.call(() => this.api().session.get({ sessionID: sessionId, ...this.dir(sessionId) })),
    );
  }

  async renameSession(sessionId: string, title: string): Promise<Session> {
    return this.opts.toSession(
      await this.call(() => this.api().session.update({ sessionID: sessionId, title, ...this.dir(sessionId) })),
    );
  }

  async deleteSession(sessionId: string): Promise<void> {
    await this.call(() => this.api().session.delete({ sessionID: sessionId, ...this.dir(sessionId) }));
  }

  async loadMessages(
    sessionId: string,
    q: { before?: string; limit: number },
  ): Promise<{ items: Message[]; nextCursor?: string }> {
    let cursor: string | null = null;
    const raw = await this.call(async () => {
      const r = await this.api().session.messages({
        sessionID: sessionId,
        limit: q.limit,
        ...(q.before ? { before: q.before } : {}),
        ...this.dir(sessionId),
      });
      cursor = r.response?.headers.get("x-next-cursor") ?? null;
      return r;
    });
    const items = ((raw ?? []) as unknown[]).flatMap((m) => {
      const msg = toMessage(m);
      return msg ? [msg] : [];
    });
    return { items, ...(cursor ? { nextCursor: cursor } : {}) };
  }

  /** A session's todo list as OpenCode answers it (none when it cannot). */
  todos(sessionId: string): Promise<unknown> {
    return this.call(() => this.api().session.todo({ sessionID: sessionId, ...this.dir(sessionId) })).catch(() => []);
  }

  async prompt(sessionId: string, body: PromptBody): Promise<void> {
    const parts = body.parts.map((p) =>
      p.type === "text"
        ? { type: "text" as const, text: p.text }
        : { type: "file" as const, mime: p.mime, url: p.url, ...(p.filename ? { filename: p.filename } : {}) },
    );
    await this.call(() =>
      this.api().session.promptAsync({
        sessionID: sessionId,
        parts,
        ...(body.model ? { model: { providerID: body.model.provider ?? "", modelID: body.model.id } } : {}),
        ...(body.agent ? { agent: body.agent } : {}),
        ...this.dir(sessionId),
      }),
    );
  }

  /** The files matching `query` in the session's directory, as OpenCode answers them. */
  findFiles(sessionId: string, query: string, limit: number): Promise<unknown> {
    return this.call(() =>
      this.api().find.files({ query, dirs: "false", type: "file", limit, ...this.dir(sessionId) }),
    );
  }

  async abort(sessionId: string): Promise<void> {
    await this.call(() => this.api().session.abort({ sessionID: sessionId, ...this.dir(sessionId) }));
  }

  async models(): Promise<ModelList> {
    const [providers, config] = await Promise.all([
      this.call(() => this.api().config.providers()),
      this.call(() => this.api().config.get()).catch(() => undefined),
    ]);
    return toModelList(providers, config);
  }

  async agents(): Promise<AgentList> {
    return toAgentList(await this.call(() => this.api().app.agents()));
  }

  async diff(sessionId: string, messageId?: string): Promise<FileDiff[]> {
    const raw = await this.call(() =>
      this.api().session.diff({
        sessionID: sessionId,
        ...(messageId ? { messageID: messageId } : {}),
        ...this.dir(sessionId),
      }),
    );
    return toFileDiffs(raw);
  }

  /** Ids and roles of every message of a session, chronological (ids sort in time order). */
  private async messageRoles(sessionId: string): Promise<{ id: string; role: string }[]> {
    const raw = await this.call(() => this.api().session.messages({ sessionID: sessionId, ...this.dir(sessionId) }));
    return ((raw ?? []) as { info?: { id?: unknown; role?: unknown } }[]).flatMap((m) =>
      typeof m.info?.id === "string" && typeof m.info.role === "string" ? [{ id: m.info.id, role: m.info.role }] : [],
    );
  }

  async fork(sessionId: string, messageId?: string): Promise<Session> {
    let before: string | undefined;
    if (messageId) {
      // OpenCode copies the messages strictly before `messageID` (and everything for an unknown id).
      const all = await this.messageRoles(sessionId);
      const i = all.findIndex((m) => m.id === messageId);
      if (i < 0) throw ApiError.notFound(`Unknown message: ${messageId}`);
      before = all[i]!.role === "user" ? messageId : all[i + 1]?.id;
    }
    const raw = await this.call(() =>
      this.api().session.fork({
        sessionID: sessionId,
        ...(before ? { messageID: before } : {}),
        ...this.dir(sessionId),
      }),
    );
    return this.opts.toSession(raw);
  }

  private async requireMessage(sessionId: string, messageId: string): Promise<void> {
    if (!/^msg_[A-Za-z0-9]+$/.test(messageId)) throw ApiError.notFound(`Unknown message: ${messageId}`);
    try {
      await this.call(() =>
        this.api().session.message({ sessionID: sessionId, messageID: messageId, ...this.dir(sessionId) }),
      );
    } catch (err) {
      if (isApiError(err) && err.code === "not_found") throw ApiError.notFound(`Unknown message: ${messageId}`);
      throw err;
    }
  }

  async revert(sessionId: string, messageId: string): Promise<Session> {
    // OpenCode answers 200 and does nothing for an unknown message: check it first.
    await this.requireMessage(sessionId, messageId);
    return this.opts.toSession(
      await this.call(() =>
        this.api().session.revert({ sessionID: sessionId, messageID: messageId, ...this.dir(sessionId) }),
      ),
    );
  }

  async unrevert(sessionId: string): Promise<Session> {
    return this.opts.toSession(
      await this.call(() => this.api().session.unrevert({ sessionID: sessionId, ...this.dir(sessionId) })),
    );
  }

  async compact(sessionId: string, model: { provider: string; id: string }): Promise<void> {
    const { provider, id } = model;
    await this.call(() =>
      this.api().session.summarize({ sessionID: sessionId, providerID: provider, modelID: id, ...this.dir(sessionId) }),
    );
  }

  async children(sessionId: string): Promise<Session[]> {
    const raw = await this.call(() => this.api().session.children({ sessionID: sessionId, ...this.dir(sessionId) }));
    return ((raw ?? []) as unknown[]).map((s) => this.opts.toSession(s));
  }

  async replyPermission(
    sessionId: string,
    requestId: string,
    reply: "once" | "always" | "reject",
    message: string | undefined,
  ): Promise<void> {
    await this.call(() =>
      this.api().permission.reply({
        requestID: requestId,
        reply,
        ...(message ? { message } : {}),
        ...this.dir(sessionId),
      }),
    );
  }

  async replyQuestion(sessionId: string, requestId: string, answers: string[][]): Promise<void> {
    await this.call(() => this.api().question.reply({ requestID: requestId, answers, ...this.dir(sessionId) }));
  }

  async rejectQuestion(sessionId: string, requestId: string): Promise<void> {
    await this.call(() => this.api().question.reject({ requestID: requestId, ...this.dir(sessionId) }));
  }
}
