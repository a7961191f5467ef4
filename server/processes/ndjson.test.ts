import { describe, expect, it } from "vitest";
import { NdjsonFramer } from "./ndjson";

const enc = new TextEncoder();
const dec = new TextDecoder();
const lines = (out: Uint8Array[]) => out.map((b) => dec.decode(b));

describe("NdjsonFramer", () => {
  it("passes JSON-object lines through, split across chunks, with their newline", () => {
    const skipped: string[] = [];
    const f = new NdjsonFramer({ onSkip: (r) => skipped.push(r) });
    const out = [...f.push(enc.encode('{"a":1}\n{"b":')), ...f.push(enc.encode('2}\r\n\n{"c":3}')), ...f.flush()];
    expect(lines(out)).toEqual(['{"a":1}\n', '{"b":2}\n', '{"c":3}\n']);
    expect(skipped).toEqual([]);
  });

  it("skips malformed lines, non-objects and overlong lines without stopping", () => {
    const skipped: string[] = [];
    const f = new NdjsonFramer({ maxLineBytes: 32, onSkip: (r, p) => skipped.push(`${r}: ${p}`) });
    const input = 'Welcome banner\n{"ok":1}\n[1,2]\n42\n{"x":"' + "y".repeat(100) + '"}\n{"truncated":\n{"ok":2}\n';
    const out: Uint8Array[] = [];
    // byte-at-a-time feeding must give the same result
    for (const b of enc.encode(input)) out.push(...f.push(Uint8Array.of(b)));
    out.push(...f.flush());
    expect(lines(out)).toEqual(['{"ok":1}\n', '{"ok":2}\n']);
    expect(skipped).toHaveLength(5);
    expect(skipped[0]).toContain("not JSON: Welcome banner");
    expect(skipped.some((s) => s.startsWith("line longer than 32 bytes"))).toBe(true);
  });

  it("works as a web TransformStream", async () => {
    const src = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(enc.encode('{"jsonrpc":"2.0","id":0}\nnot json\n'));
        c.enqueue(enc.encode('{"jsonrpc":"2.0","id":1}'));
        c.close();
      },
    });
    const got: string[] = [];
    const reader = src.pipeThrough(new NdjsonFramer().stream()).getReader();
    for (let r = await reader.read(); !r.done; r = await reader.read()) got.push(dec.decode(r.value));
    expect(got).toEqual(['{"jsonrpc":"2.0","id":0}\n', '{"jsonrpc":"2.0","id":1}\n']);
  });
});
