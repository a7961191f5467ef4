/**
 * Message framing for agents spoken to over a byte stream (stdio). Pure: no I/O, no Node imports;
 * usable as web TransformStreams.
 *
 * - `NdjsonFramer`: newline-delimited JSON (ACP, Opal, zot). Splits bytes into lines and lets through
 *   only lines that are JSON objects; anything else (a banner printed to stdout, a truncated write, a
 *   stray array, a line over the size cap) is reported through `onSkip` and skipped, never fatal.
 * - `ContentLengthFramer`: `Content-Length: N\r\n\r\n<N bytes>` (LSP-style, Copilot headless), with
 *   the same size cap and skipping.
 * - `Framing` (`ndjsonFraming()`, `contentLengthFraming()`): the pluggable pair a `JsonRpcPeer`
 *   (./json-rpc.ts) reads and writes messages with.
 */

const NL = 0x0a;
const CR = 0x0d;
const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;

/** Called for every skipped frame with a short reason and a preview of its start. */
export type SkipHandler = (reason: string, preview: string) => void;

export interface FramerOptions {
  /** Longest accepted frame; longer ones are dropped whole (default 64 MiB). */
  maxLineBytes?: number;
  onSkip?: SkipHandler;
}

/** Parses a frame's text as a JSON object, or reports why not (and returns undefined). */
export function parseJsonObject(text: string, onSkip?: SkipHandler): Record<string, unknown> | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    onSkip?.("not JSON", text.slice(0, 200));
    return undefined;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    onSkip?.("not a JSON object", text.slice(0, 200));
    return undefined;
  }
  return value as Record<string, unknown>;
}

/** NDJSON: complete, valid JSON-object lines out (each with its trailing newline). */
export class NdjsonFramer {
  private parts: Uint8Array[] = [];
  private size = 0;
  private discarding = false;
  private readonly max: number;
  private readonly decoder = new TextDecoder();

  constructor(private opts: FramerOptions = {}) {
    this.max = opts.maxLineBytes ?? DEFAULT_MAX_BYTES;
  }

  /** Feeds bytes; returns the complete, valid lines (each with its trailing newline). */
  push(chunk: Uint8Array): Uint8Array[] {
    const out: Uint8Array[] = [];
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(NL, start);
      if (nl < 0) break;
      this.append(chunk.subarray(start, nl));
      this.endLine(out);
      start = nl + 1;
    }
    if (start < chunk.length) this.append(chunk.subarray(start));
    return out;
  }

  /** The last line when the stream ends without a newline. */
  flush(): Uint8Array[] {
    const out: Uint8Array[] = [];
    if (this.size > 0 || this.discarding) this.endLine(out);
    return out;
  }

  /** As a web TransformStream (bytes in, valid lines out). */
  stream(): TransformStream<Uint8Array, Uint8Array> {
    return new TransformStream({
      transform: (chunk, controller) => {
        for (const line of this.push(chunk)) controller.enqueue(line);
      },
      flush: (controller) => {
        for (const line of this.flush()) controller.enqueue(line);
      },
    });
  }

  private append(bytes: Uint8Array) {
    if (this.discarding || bytes.length === 0) return;
    if (this.size + bytes.length > this.max) {
      this.discarding = true;
      const head = this.parts[0] ?? bytes;
      this.opts.onSkip?.(`line longer than ${this.max} bytes`, this.decoder.decode(head.subarray(0, 120)));
      this.parts = [];
      this.size = 0;
      return;
    }
    // Copy: the caller may reuse its buffer.
    this.parts.push(bytes.slice());
    this.size += bytes.length;
  }

  private endLine(out: Uint8Array[]) {
    if (this.discarding) {
      this.discarding = false;
      this.parts = [];
      this.size = 0;
      return;
    }
    let bytes = this.parts.length === 1 ? this.parts[0]! : concat(this.parts, this.size);
    if (bytes[bytes.length - 1] === CR) bytes = bytes.subarray(0, bytes.length - 1);
    this.parts = [];
    this.size = 0;
    const text = this.decoder.decode(bytes).trim();
    if (!text) return;
    if (!parseJsonObject(text, this.opts.onSkip)) return;
    const line = new Uint8Array(bytes.length + 1);
    line.set(bytes);
    line[bytes.length] = NL;
    out.push(line);
  }
}

/**
 * `Content-Length` framing: a header block (`Content-Length: N`, other headers ignored) ended by an
 * empty line, then exactly N bytes of JSON. Emits the bodies that are JSON objects. A header block
 * without a usable length, or a length over the cap, is skipped up to the next header block.
 */
export class ContentLengthFramer {
  private buf: Uint8Array = new Uint8Array(0);
  /** Body bytes still to read for the current frame (-1: reading headers). */
  private want = -1;
  /** Bytes of an oversized body still to throw away. */
  private skipping = 0;
  private readonly max: number;
  private readonly decoder = new TextDecoder();

  constructor(private opts: FramerOptions = {}) {
    this.max = opts.maxLineBytes ?? DEFAULT_MAX_BYTES;
  }

  /** Feeds bytes; returns the complete bodies that are JSON objects (as text). */
  push(chunk: Uint8Array): string[] {
    const out: string[] = [];
    let data = chunk;
    if (this.skipping > 0) {
      const n = Math.min(this.skipping, data.length);
      this.skipping -= n;
      data = data.subarray(n);
    }
    this.buf = this.buf.length ? concat([this.buf, data], this.buf.length + data.length) : data.slice();
    for (;;) {
      if (this.skipping > 0) {
        const n = Math.min(this.skipping, this.buf.length);
        this.skipping -= n;
        this.buf = this.buf.subarray(n);
        if (this.skipping > 0) break;
      }
      if (this.want < 0) {
        const end = headerEnd(this.buf);
        if (end < 0) {
          if (this.buf.length > 8192) {
            this.opts.onSkip?.("header block too long", this.decoder.decode(this.buf.subarray(0, 120)));
            this.buf = new Uint8Array(0);
          }
          break;
        }
        const header = this.decoder.decode(this.buf.subarray(0, end));
        this.buf = this.buf.subarray(end + (this.buf[end] === CR ? 4 : 2));
        const m = /(?:^|\n)\s*content-length\s*:\s*(\d+)\s*(?:\r?$|\r?\n)/im.exec(header);
        if (!m) {
          this.opts.onSkip?.("no Content-Length header", header.slice(0, 200));
          continue;
        }
        const n = Number(m[1]);
        if (n > this.max) {
          this.opts.onSkip?.(`frame longer than ${this.max} bytes`, header.slice(0, 200));
          this.skipping = n;
          continue;
        }
        this.want = n;
      }
      if (this.buf.length < this.want) break;
      const body = this.decoder.decode(this.buf.subarray(0, this.want));
      this.buf = this.buf.subarray(this.want);
      this.want = -1;
      if (parseJsonObject(body, this.opts.onSkip)) out.push(body);
    }
    // Keep our own copy of a partial frame: the caller may reuse its buffer.
    this.buf = this.buf.slice();
    return out;
  }
}

/** Index of the `\r\n\r\n` (or `\n\n`) that ends a header block, or -1. */
function headerEnd(b: Uint8Array): number {
  for (let i = 0; i + 1 < b.length; i++) {
    if (b[i] !== NL && b[i] !== CR) continue;
    if (b[i] === CR && b[i + 1] === NL && b[i + 2] === CR && b[i + 3] === NL) return i;
    if (b[i] === NL && b[i + 1] === NL) return i;
  }
  return -1;
}

function concat(parts: Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/* ------------------------------------------------------------------------- pluggable framing */

/** How messages are cut out of, and written into, a byte stream. */
export interface Framing {
  readonly name: string;
  /** A fresh decoder: bytes in, parsed JSON objects out (malformed frames reported and skipped). */
  decoder(onSkip?: SkipHandler): TransformStream<Uint8Array, Record<string, unknown>>;
  /** One message as bytes on the wire. */
  encode(message: unknown): Uint8Array;
}

const encoder = new TextEncoder();

/** Newline-delimited JSON (one object per line). */
export function ndjsonFraming(opts: { maxBytes?: number } = {}): Framing {
  return {
    name: "ndjson",
    decoder(onSkip) {
      const framer = new NdjsonFramer({
        ...(opts.maxBytes ? { maxLineBytes: opts.maxBytes } : {}),
        ...(onSkip ? { onSkip } : {}),
      });
      const text = new TextDecoder();
      return new TransformStream({
        transform(chunk, controller) {
          for (const line of framer.push(chunk))
            controller.enqueue(JSON.parse(text.decode(line)) as Record<string, unknown>);
        },
        flush(controller) {
          for (const line of framer.flush())
            controller.enqueue(JSON.parse(text.decode(line)) as Record<string, unknown>);
        },
      });
    },
    encode: (message) => encoder.encode(`${JSON.stringify(message)}\n`),
  };
}

/** `Content-Length: N\r\n\r\n` + body (LSP-style base protocol). */
export function contentLengthFraming(opts: { maxBytes?: number } = {}): Framing {
  return {
    name: "content-length",
    decoder(onSkip) {
      const framer = new ContentLengthFramer({
        ...(opts.maxBytes ? { maxLineBytes: opts.maxBytes } : {}),
        ...(onSkip ? { onSkip } : {}),
      });
      return new TransformStream({
        transform(chunk, controller) {
          for (const body of framer.push(chunk)) controller.enqueue(JSON.parse(body) as Record<string, unknown>);
        },
      });
    },
    encode(message) {
      const body = encoder.encode(JSON.stringify(message));
      const head = encoder.encode(`Content-Length: ${body.length}\r\n\r\n`);
      return concat([head, body], head.length + body.length);
    },
  };
}

/** For `ProcessSupervisor`'s `framing` option: stdout cut into valid NDJSON lines (bytes). */
export function ndjsonLines(onSkip: SkipHandler): TransformStream<Uint8Array, Uint8Array> {
  return new NdjsonFramer({ onSkip }).stream();
}
