import "server-only";
import type { SupervisedProcess } from "../../processes/supervisor";
import { ndjsonFraming, type SkipHandler } from "../shared/framing";
import { str, type Obj } from "../shared/values";

/** A `{type:"response"}` frame: `success` with `data`, or `error`. */
export interface ZotResponse {
  command: string;
  success: boolean;
  data?: unknown;
  error?: string;
}

/** zot answered a command with `success:false` (`error` is zot's own message). */
export class ZotCommandError extends Error {
  constructor(
    readonly command: string,
    readonly zotError: string,
  ) {
    super(zotError);
    this.name = "ZotCommandError";
  }
}

/** The process went away before it answered. */
export class ZotClosedError extends Error {
  constructor(command: string) {
    super(`zot exited before it answered "${command}"`);
    this.name = "ZotClosedError";
  }
}

export interface ZotConnectionOptions {
  /** Every event frame (anything that is not a response), in order. */
  onEvent(frame: Obj): void;
  /** A frame that is not usable (not JSON, a response nobody waits for). */
  onSkip: SkipHandler;
  /** stdout ended (the process is exiting, or closed it). */
  onClose(): void;
}

/**
 * zot's command/response/event NDJSON over one process's stdio (not JSON-RPC): commands carry a
 * string `id` of ours, responses are matched by `id` (never by order: a queued prompt's response
 * comes when it starts), everything else is an event. Framing: ../shared/framing.ts (malformed lines
 * skipped, size-capped at zot's own 16 MiB).
 */
export class ZotConnection {
  private seq = 0;
  private pending = new Map<
    string,
    {
      command: string;
      resolve: (r: ZotResponse) => void;
      reject: (e: Error) => void;
      onResponse?: (r: ZotResponse) => void;
    }
  >();
  private writer: WritableStreamDefaultWriter<Uint8Array>;
  private framing = ndjsonFraming({ maxBytes: 16 * 1024 * 1024 });
  private _closed = false;

  constructor(
    p: SupervisedProcess,
    private opts: ZotConnectionOptions,
  ) {
    this.writer = p.stdin.getWriter();
    void this.read(p.stdout);
  }

  get closed(): boolean {
    return this._closed;
  }

  private async read(stdout: ReadableStream<Uint8Array>) {
    const reader = stdout.pipeThrough(this.framing.decoder(this.opts.onSkip)).getReader();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        this.onFrame(value);
      }
    } catch {
      // the pipe broke: same as its end
    } finally {
      this.close();
      this.opts.onClose();
    }
  }

  private onFrame(frame: Obj) {
    if (frame.type !== "response") {
      this.opts.onEvent(frame);
      return;
    }
    const id = str(frame.id);
    const waiter = id !== undefined ? this.pending.get(id) : undefined;
    if (!waiter) {
      this.opts.onSkip("a response to no command of ours", JSON.stringify(frame).slice(0, 200));
      return;
    }
    this.pending.delete(id!);
    const r: ZotResponse = {
      command: str(frame.command) ?? waiter.command,
      success: frame.success === true,
      ...(frame.data !== undefined ? { data: frame.data } : {}),
      ...(typeof frame.error === "string" ? { error: frame.error } : {}),
    };
    waiter.onResponse?.(r);
    waiter.resolve(r);
  }

  /**
   * Sends a command and resolves with its response (whatever `success`); rejects when the process
   * ends first. `onResponse` runs synchronously when the response is read, before any later frame
   * (a prompt's events follow its response at once).
   */
  request(type: string, params: Obj = {}, onResponse?: (r: ZotResponse) => void): Promise<ZotResponse> {
    if (this._closed) return Promise.reject(new ZotClosedError(type));
    const id = `sb${++this.seq}`;
    return new Promise<ZotResponse>((resolve, reject) => {
      this.pending.set(id, { command: type, resolve, reject, ...(onResponse ? { onResponse } : {}) });
      this.writer.write(this.framing.encode({ ...params, id, type })).catch(() => {
        this.pending.delete(id);
        reject(new ZotClosedError(type));
      });
    });
  }

  /** `request`, with `success:false` thrown as a `ZotCommandError`; resolves with `data`. */
  async call(type: string, params: Obj = {}): Promise<unknown> {
    const r = await this.request(type, params);
    if (!r.success) throw new ZotCommandError(type, r.error ?? "failed without a message");
    return r.data;
  }

  /** Closes stdin: zot exits once its running prompt is over. */
  end(): void {
    if (this._closed) return;
    void this.writer.close().catch(() => undefined);
  }

  /** Every waiting command is rejected; nothing more is sent. */
  close(): void {
    if (this._closed) return;
    this._closed = true;
    for (const [id, w] of this.pending) {
      this.pending.delete(id);
      w.reject(new ZotClosedError(w.command));
    }
    void this.writer.close().catch(() => undefined);
  }
}
