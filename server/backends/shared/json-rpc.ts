/**
 * A JSON-RPC 2.0 peer over a byte stream with pluggable framing (./framing.ts: NDJSON for Opal,
 * Content-Length for Copilot headless). Both sides may send requests: the peer keeps our pending
 * requests (ids are numbers from 1; the other side's ids may be 0, negative or strings), answers
 * the other side's requests with the registered handlers (`-32601` for an unknown method), delivers
 * notifications, times requests out, and when the stream ends or `close()` is called rejects every
 * pending request with `JsonRpcClosedError` and aborts the handlers still running.
 *
 * Malformed frames and messages that are not JSON-RPC are reported through `onSkip` and ignored:
 * an agent printing garbage never breaks the connection. Pure web streams, no Node imports.
 *
 * ACP agents are spoken to with `@agentclientprotocol/sdk` instead (server/backends/acp/adapter.ts).
 */
import type { Framing, SkipHandler } from "./framing";

export type JsonRpcId = number | string;

/** An error response from the other side (or one a handler throws to answer with a specific code). */
export class JsonRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = "JsonRpcError";
  }
  static methodNotFound(method: string) {
    return new JsonRpcError(-32601, `Method not found: ${method}`);
  }
  static invalidParams(message: string, data?: unknown) {
    return new JsonRpcError(-32602, message, data);
  }
}

/** A request that got no answer within its timeout. */
export class JsonRpcTimeoutError extends Error {
  constructor(
    readonly method: string,
    readonly timeoutMs: number,
  ) {
    super(`No answer to ${method} within ${Math.round(timeoutMs / 1000)} s`);
    this.name = "JsonRpcTimeoutError";
  }
}

/** The connection ended (process exited, stream closed) before the answer came. */
export class JsonRpcClosedError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = "JsonRpcClosedError";
  }
}

export interface RequestContext {
  id: JsonRpcId;
  method: string;
  /** Aborted when the connection closes before the handler finished. */
  signal: AbortSignal;
}

export type RequestHandler = (params: unknown, ctx: RequestContext) => unknown;
export type NotificationHandler = (params: unknown, method: string) => void;

export interface JsonRpcPeerOptions {
  /** Bytes from the other side (e.g. a child's stdout). */
  readable: ReadableStream<Uint8Array>;
  /** Bytes to the other side (e.g. a child's stdin). */
  writable: WritableStream<Uint8Array>;
  framing: Framing;
  /** Default timeout of `request()` (default 60 s; 0 = none). */
  timeoutMs?: number;
  /** Frames or messages that were skipped. */
  onSkip?: SkipHandler;
  /** Notifications without a handler of their own. */
  onNotification?: NotificationHandler;
}

interface Pending {
  method: string;
  resolve(v: unknown): void;
  reject(e: unknown): void;
  timer?: ReturnType<typeof setTimeout>;
}

const isId = (v: unknown): v is JsonRpcId => typeof v === "number" || typeof v === "string";

export class JsonRpcPeer {
  private nextId = 1;
  private pending = new Map<JsonRpcId, Pending>();
  private handlers = new Map<string, RequestHandler>();
  private notifications = new Map<string, NotificationHandler>();
  private running = new Set<AbortController>();
  private writer: WritableStreamDefaultWriter<Uint8Array>;
  private writeChain: Promise<void> = Promise.resolve();
  private closeReason: string | undefined;
  private resolveClosed!: () => void;
  /** Resolves once the connection is closed (by either side). */
  readonly closed: Promise<void>;

  constructor(private opts: JsonRpcPeerOptions) {
    this.closed = new Promise((r) => (this.resolveClosed = r));
    this.writer = opts.writable.getWriter();
    void this.readLoop();
  }

  get isClosed(): boolean {
    return this.closeReason !== undefined;
  }

  /** Requests in flight (for tests and diagnostics). */
  get pendingCount(): number {
    return this.pending.size;
  }

  /** Answers the other side's `method` requests; the handler's value (or thrown `JsonRpcError`) is the response. */
  onRequest(method: string, handler: RequestHandler): this {
    this.handlers.set(method, handler);
    return this;
  }

  onNotification(method: string, handler: NotificationHandler): this {
    this.notifications.set(method, handler);
    return this;
  }

  /** Sends a request and resolves with its result; rejects with `JsonRpcError`, `JsonRpcTimeoutError` or `JsonRpcClosedError`. */
  request<T = unknown>(
    method: string,
    params?: unknown,
    opts: { timeoutMs?: number; signal?: AbortSignal } = {},
  ): Promise<T> {
    if (this.closeReason !== undefined) return Promise.reject(new JsonRpcClosedError(this.closeReason));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const p: Pending = { method, resolve: resolve as (v: unknown) => void, reject };
      const ms = opts.timeoutMs ?? this.opts.timeoutMs ?? 60_000;
      if (ms > 0) {
        p.timer = setTimeout(() => {
          if (this.pending.delete(id)) reject(new JsonRpcTimeoutError(method, ms));
        }, ms);
        p.timer.unref?.();
      }
      opts.signal?.addEventListener(
        "abort",
        () => {
          if (!this.pending.delete(id)) return;
          clearTimeout(p.timer);
          reject(opts.signal?.reason ?? new Error("aborted"));
        },
        { once: true },
      );
      this.pending.set(id, p);
      this.write({ jsonrpc: "2.0", id, method, ...(params !== undefined ? { params } : {}) }).catch((err: unknown) => {
        if (!this.pending.delete(id)) return;
        clearTimeout(p.timer);
        reject(err instanceof Error ? new JsonRpcClosedError(err.message) : err);
      });
    });
  }

  /** Sends a notification (no answer). Resolves once written; rejects when the connection is closed. */
  notify(method: string, params?: unknown): Promise<void> {
    if (this.closeReason !== undefined) return Promise.reject(new JsonRpcClosedError(this.closeReason));
    return this.write({ jsonrpc: "2.0", method, ...(params !== undefined ? { params } : {}) });
  }

  /** Closes the connection: pending requests are rejected, running handlers aborted. Idempotent. */
  close(reason = "connection closed"): void {
    if (this.closeReason !== undefined) return;
    this.closeReason = reason;
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      this.pending.delete(id);
      p.reject(new JsonRpcClosedError(reason));
    }
    for (const c of this.running) c.abort(new JsonRpcClosedError(reason));
    this.running.clear();
    this.writer.close().catch(() => undefined);
    this.resolveClosed();
  }

  private write(message: unknown): Promise<void> {
    const bytes = this.opts.framing.encode(message);
    const next = this.writeChain.then(() => this.writer.write(bytes));
    this.writeChain = next.catch(() => undefined);
    return next;
  }

  private async readLoop() {
    const reader = this.opts.readable.pipeThrough(this.opts.framing.decoder(this.opts.onSkip)).getReader();
    try {
      for (;;) {
        const r = await reader.read();
        if (r.done) break;
        this.dispatch(r.value);
      }
      this.close("the other side closed the connection");
    } catch (err) {
      this.close(`the connection failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  private dispatch(msg: Record<string, unknown>) {
    const method = msg.method;
    if (typeof method === "string") {
      if (isId(msg.id)) this.answer(msg.id, method, msg.params);
      else this.notified(method, msg.params);
      return;
    }
    if (isId(msg.id) && ("result" in msg || "error" in msg)) {
      const p = this.pending.get(msg.id);
      if (!p) {
        this.opts.onSkip?.("response to an unknown request", JSON.stringify(msg).slice(0, 200));
        return;
      }
      this.pending.delete(msg.id);
      clearTimeout(p.timer);
      if ("error" in msg) {
        const e = (msg.error ?? {}) as { code?: unknown; message?: unknown; data?: unknown };
        p.reject(
          new JsonRpcError(
            typeof e.code === "number" ? e.code : -32603,
            typeof e.message === "string" ? e.message : "Unknown error",
            e.data,
          ),
        );
      } else {
        p.resolve(msg.result);
      }
      return;
    }
    this.opts.onSkip?.("not a JSON-RPC message", JSON.stringify(msg).slice(0, 200));
  }

  private notified(method: string, params: unknown) {
    const h = this.notifications.get(method) ?? this.opts.onNotification;
    if (!h) return;
    try {
      h(params, method);
    } catch (err) {
      this.opts.onSkip?.(
        `notification handler for ${method} failed: ${err instanceof Error ? err.message : String(err)}`,
        "",
      );
    }
  }

  private answer(id: JsonRpcId, method: string, params: unknown) {
    const h = this.handlers.get(method);
    if (!h) {
      void this.write({ jsonrpc: "2.0", id, error: { code: -32601, message: `Method not found: ${method}` } }).catch(
        () => undefined,
      );
      return;
    }
    const ctrl = new AbortController();
    this.running.add(ctrl);
    void (async () => {
      let reply: unknown;
      try {
        const result = await h(params, { id, method, signal: ctrl.signal });
        reply = { jsonrpc: "2.0", id, result: result ?? null };
      } catch (err) {
        const e =
          err instanceof JsonRpcError
            ? err
            : new JsonRpcError(-32603, err instanceof Error ? err.message : String(err));
        reply = {
          jsonrpc: "2.0",
          id,
          error: { code: e.code, message: e.message, ...(e.data !== undefined ? { data: e.data } : {}) },
        };
      } finally {
        this.running.delete(ctrl);
      }
      if (this.closeReason === undefined) await this.write(reply).catch(() => undefined);
    })();
  }
}
