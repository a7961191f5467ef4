import { describe, expect, it } from "vitest";
import { ContentLengthFramer, NdjsonFramer, contentLengthFraming, ndjsonFraming, type Framing } from "./framing";

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
    const input = `Welcome banner\n{"ok":1}\n[1,2]\n42\n{"x":"${"y".repeat(100)}"}\n{"truncated":\n{"ok":2}\n`;
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

describe("ContentLengthFramer", () => {
  it("cuts bodies out of Content-Length frames, split anywhere, with other headers ignored", () => {
    const skipped: string[] = [];
    const f = new ContentLengthFramer({ onSkip: (r) => skipped.push(r) });
    const a = '{"id":0,"result":"é"}';
    const wire = `Content-Length: ${enc.encode(a).length}\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n${a}Content-Length: 2\r\n\r\n{}`;
    const out: string[] = [];
    for (const b of enc.encode(wire)) out.push(...f.push(Uint8Array.of(b)));
    expect(out).toEqual([a, "{}"]);
    expect(skipped).toEqual([]);
  });

  it("skips headers without a length, oversized frames and bodies that are not JSON objects", () => {
    const skipped: string[] = [];
    const f = new ContentLengthFramer({ maxLineBytes: 16, onSkip: (r) => skipped.push(r) });
    const big = `{"x":"${"y".repeat(40)}"}`;
    const wire = `X-Junk: 1\r\n\r\nContent-Length: ${big.length}\r\n\r\n${big}Content-Length: 5\r\n\r\n[1,2]Content-Length: 3\r\n\r\nnopContent-Length: 8\r\n\r\n{"ok":1}`;
    const out = [...f.push(enc.encode(wire.slice(0, 30))), ...f.push(enc.encode(wire.slice(30)))];
    expect(out).toEqual(['{"ok":1}']);
    expect(skipped).toEqual([
      "no Content-Length header",
      "frame longer than 16 bytes",
      "not a JSON object",
      "not JSON",
    ]);
  });
});

describe("Framing", () => {
  async function decodeAll(framing: Framing, chunks: string[]) {
    const skipped: string[] = [];
    const src = new ReadableStream<Uint8Array>({
      start(c) {
        for (const ch of chunks) c.enqueue(enc.encode(ch));
        c.close();
      },
    });
    const got: unknown[] = [];
    const reader = src.pipeThrough(framing.decoder((r) => skipped.push(r))).getReader();
    for (let r = await reader.read(); !r.done; r = await reader.read()) got.push(r.value);
    return { got, skipped };
  }

  it("ndjson: encodes one object per line and decodes what it encoded", async () => {
    const f = ndjsonFraming();
    const wire = `${dec.decode(f.encode({ a: 1 }))}garbage\n${dec.decode(f.encode({ b: [2] }))}`;
    expect(wire.endsWith("\n")).toBe(true);
    const { got, skipped } = await decodeAll(f, [wire.slice(0, 5), wire.slice(5)]);
    expect(got).toEqual([{ a: 1 }, { b: [2] }]);
    expect(skipped).toEqual(["not JSON"]);
  });

  it("content-length: encodes with the byte length and decodes what it encoded", async () => {
    const f = contentLengthFraming();
    const bytes = f.encode({ text: "héllo" });
    expect(dec.decode(bytes)).toBe(`Content-Length: ${enc.encode('{"text":"héllo"}').length}\r\n\r\n{"text":"héllo"}`);
    const { got } = await decodeAll(f, [dec.decode(bytes), dec.decode(f.encode({ n: 0 }))]);
    expect(got).toEqual([{ text: "héllo" }, { n: 0 }]);
  });
});
