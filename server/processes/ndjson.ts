/**
 * NDJSON framing for stdio agents: splits a byte stream into lines and lets through only lines that
 * are JSON objects. Anything else (a banner printed to stdout, a truncated write, a stray array) is
 * reported and skipped, never fatal. Pure: no I/O, usable as a web TransformStream.
 */

const NL = 0x0a;
const CR = 0x0d;

export interface NdjsonFramerOptions {
  /** Longest accepted line; longer ones are dropped whole (default 64 MiB). */
  maxLineBytes?: number;
  /** Called for every skipped line with a short reason and a preview of its start. */
  onSkip?: (reason: string, preview: string) => void;
}

export class NdjsonFramer {
  private parts: Uint8Array[] = [];
  private size = 0;
  private discarding = false;
  private readonly max: number;
  private readonly decoder = new TextDecoder();

  constructor(private opts: NdjsonFramerOptions = {}) {
    this.max = opts.maxLineBytes ?? 64 * 1024 * 1024;
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
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.opts.onSkip?.("not JSON", text.slice(0, 200));
      return;
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      this.opts.onSkip?.("not a JSON object", text.slice(0, 200));
      return;
    }
    const line = new Uint8Array(bytes.length + 1);
    line.set(bytes);
    line[bytes.length] = NL;
    out.push(line);
  }
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
