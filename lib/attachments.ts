import { formatBytes } from "./format-bytes";
import type { Capabilities } from "./model";

/**
 * Files attached to a prompt (the composer's paste, drop and attach button): which ones a backend
 * takes, and the limits. They travel as `data:` URLs in the prompt's file parts (lib/api.ts
 * `PromptPart`, at most 10,000,000 characters each), which each backend maps to its own protocol.
 */
/** A file attached to the prompt being written, read into a `data:` URL. */
export interface Attachment {
  id: number;
  name: string;
  mime: string;
  size: number;
  url: string;
}

export const MAX_ATTACHMENTS = 10;
/** One file's size, and all of a prompt's files together (base64 makes them a third larger). */
export const MAX_ATTACHMENT_BYTES = 5 * 1024 * 1024;
export const MAX_ATTACHMENTS_TOTAL_BYTES = 7 * 1024 * 1024;

const IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);
const TEXT_EXTENSIONS =
  /\.(txt|md|markdown|json|jsonl|ya?ml|toml|csv|tsv|xml|html?|css|s?css|less|js|mjs|cjs|jsx|ts|tsx|py|rb|go|rs|java|kt|c|h|cc|cpp|hpp|cs|swift|php|sh|bash|zsh|sql|ini|cfg|conf|env|log|diff|patch|lua|ex|exs|erl|hs|scala|clj|vue|svelte|dockerfile)$/i;

export function isTextMime(mime: string): boolean {
  return mime.startsWith("text/") || /^application\/(json|xml|x-yaml|yaml|toml|javascript|x-sh)$/.test(mime);
}

/** The media type a file is sent with: the browser's, or text/plain for a source file it did not name. */
export function attachmentMime(file: { name: string; type: string }): string {
  if (file.type) return file.type;
  return TEXT_EXTENSIONS.test(file.name) || /^(Makefile|Dockerfile|README|LICENSE)$/i.test(file.name)
    ? "text/plain"
    : "application/octet-stream";
}

/** A base64 `data:` URL's media type and payload (how attachments travel); undefined for any other URL. */
export function parseDataUrl(url: string): { mime: string; base64: string } | undefined {
  const m = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  return m ? { mime: m[1]!, base64: m[2]! } : undefined;
}

export type AttachmentKind = "image" | "file";

export function attachmentKind(mime: string): AttachmentKind | undefined {
  if (IMAGE_TYPES.has(mime)) return "image";
  if (isTextMime(mime) || mime === "application/pdf") return "file";
  return undefined;
}

/**
 * Why a file cannot be attached (undefined: it can). `already` is what the prompt holds so far.
 */
export function attachmentError(
  file: { name: string; type: string; size: number },
  caps: Capabilities["attachments"],
  already: { count: number; bytes: number },
): string | undefined {
  const mime = attachmentMime(file);
  const kind = attachmentKind(mime);
  if (!kind)
    return `${file.name}: ${mime === "application/octet-stream" ? "this kind of file" : mime} cannot be attached (images, text files and PDFs can)`;
  if (kind === "image" && !caps?.images) return `${file.name}: this backend does not take images`;
  if (kind === "file" && !caps?.files) return `${file.name}: this backend takes images only`;
  if (file.size > MAX_ATTACHMENT_BYTES)
    return `${file.name} is ${formatBytes(file.size)}; a file can be at most ${formatBytes(MAX_ATTACHMENT_BYTES)}`;
  if (already.count >= MAX_ATTACHMENTS) return `At most ${MAX_ATTACHMENTS} files per prompt`;
  if (already.bytes + file.size > MAX_ATTACHMENTS_TOTAL_BYTES)
    return `${file.name} would take the prompt's files past ${formatBytes(MAX_ATTACHMENTS_TOTAL_BYTES)}`;
  return undefined;
}

/** A file's content as a `data:` URL of type `mime` (the browser's own type may be empty). */
export function readDataUrl(file: File, mime: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const r = new FileReader();
    r.onload = () => {
      const s = String(r.result);
      // The browser's own type may be empty: the data is the same, the type is ours.
      resolve(`data:${mime};base64,${s.slice(s.indexOf(",") + 1)}`);
    };
    r.onerror = () => reject(r.error ?? new Error(`Could not read ${file.name}`));
    r.readAsDataURL(file);
  });
}

/**
 * Reads picked, pasted or dropped files into attachments: those that can go (`attachmentError`,
 * counting what the prompt holds already) are read into `data:` URLs; the others are named in
 * `errors`. `nextId` numbers the new ones. Browser only (FileReader).
 */
export async function readAttachments(
  picked: readonly File[],
  caps: Capabilities["attachments"],
  already: readonly Attachment[],
  nextId: () => number,
): Promise<{ added: Attachment[]; errors: string[] }> {
  const added: Attachment[] = [];
  const errors: string[] = [];
  let count = already.length;
  let bytes = already.reduce((n, f) => n + f.size, 0);
  for (const f of picked) {
    const mime = attachmentMime(f);
    const why = attachmentError(f, caps, { count, bytes });
    if (why) {
      errors.push(why);
      continue;
    }
    try {
      const name = f.name || `pasted.${mime.split("/")[1] ?? "bin"}`;
      added.push({ id: nextId(), name, mime, size: f.size, url: await readDataUrl(f, mime) });
      count++;
      bytes += f.size;
    } catch (err) {
      errors.push(err instanceof Error ? err.message : `Could not read ${f.name}`);
    }
  }
  return { added, errors };
}
