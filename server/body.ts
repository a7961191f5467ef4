import "server-only";
import { ApiError } from "./errors";

/**
 * A request's body, read whole but never past `maxBytes` (413 `payload_too_large`, the rest of the
 * stream cancelled): a route's JSON body (./http.ts `readBody`), and a body one console forwards to
 * another or receives signed (replica mode).
 */
export async function readBodyBytes(req: Request, maxBytes: number): Promise<Uint8Array<ArrayBuffer>> {
  const declared = Number(req.headers.get("content-length") ?? "0");
  if (declared > maxBytes) throw new ApiError("payload_too_large", `Body exceeds ${maxBytes} bytes`);
  if (!req.body) return new Uint8Array();
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      // Not awaited: a body teed by `req.clone()` (the audit keeps a copy) settles its cancel only
      // once every branch is cancelled, which would hold this request forever.
      void reader.cancel().catch(() => {});
      throw new ApiError("payload_too_large", `Body exceeds ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  return new Uint8Array(Buffer.concat(chunks));
}
