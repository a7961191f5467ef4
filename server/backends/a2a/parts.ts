/**
 * A2A message and artifact parts as blocks (./normalize.ts): text shown as deltas or replacements,
 * data parts as JSON text in a notice, files as links the view checks again; never markup.
 */
import type { Block, TimelineEvent } from "@/lib/model";
import { arr, obj, str, type Obj } from "../shared/values";
import type { TurnState } from "./turn-state";

/** Largest text a data part is shown with; larger JSON is cut. */
const MAX_DATA_TEXT = 4000;
/** Largest inline file (bytes, base64-decoded size) turned into a `data:` link. */
const MAX_INLINE_FILE = 2 * 1024 * 1024;

/** Text shown in `blockId` becomes `text`: a delta when it extends what is shown, else a replacement. */
export function setText(
  turn: TurnState,
  messageId: string,
  blockId: string,
  kind: "text" | "reasoning",
  text: string,
): TimelineEvent[] {
  const shown = turn.texts.get(blockId);
  turn.texts.set(blockId, text);
  turn.blockMessage.set(blockId, messageId);
  if (shown !== undefined && text.startsWith(shown)) {
    const delta = text.slice(shown.length);
    return delta ? [{ type: "block.delta", messageId, blockId, field: "text", delta }] : [];
  }
  return [{ type: "block.updated", messageId, block: { id: blockId, kind, text } }];
}

export function appendText(
  turn: TurnState,
  messageId: string,
  blockId: string,
  kind: "text" | "reasoning",
  delta: string,
): TimelineEvent[] {
  return setText(turn, messageId, blockId, kind, (turn.texts.get(blockId) ?? "") + delta);
}

/** Text of the text parts of a message or artifact (data and file parts are left out). */
export function partsText(parts: unknown): string {
  return arr(parts)
    .map((p) => {
      const o = obj(p);
      return (o.kind === "text" || o.kind === undefined) && typeof o.text === "string" ? o.text : "";
    })
    .join("");
}

export function dataText(data: unknown): string {
  let json: string;
  try {
    json = JSON.stringify(data, null, 2) ?? "null";
  } catch {
    json = "(unreadable data)";
  }
  return json.length > MAX_DATA_TEXT
    ? `${json.slice(0, MAX_DATA_TEXT)}\n… (${json.length - MAX_DATA_TEXT} more characters)`
    : json;
}

/** A non-text part as a block: a file link or a notice; never markup. */
export function partBlock(part: Obj, id: string): Block | undefined {
  if (part.kind === "data")
    return { id, kind: "notice", level: "info", text: `Data from the agent:\n${dataText(part.data)}` };
  if (part.kind === "file") {
    const f = obj(part.file);
    const name = str(f.name) ?? "file";
    const mime = str(f.mimeType) ?? "application/octet-stream";
    const uri = str(f.uri);
    if (uri && /^https?:\/\//i.test(uri)) return { id, kind: "file", name, mime, url: uri };
    const bytes = str(f.bytes);
    if (bytes && bytes.length * 0.75 <= MAX_INLINE_FILE && /^[A-Za-z0-9+/=\s]*$/.test(bytes))
      return { id, kind: "file", name, mime, url: `data:${mime};base64,${bytes.replace(/\s+/g, "")}` };
    return {
      id,
      kind: "notice",
      level: "info",
      text: `The agent sent a file (${name}, ${mime}) that cannot be shown here.`,
    };
  }
  return undefined;
}

/**
 * Generic: parts of an artifact or message shown in `messageId` under `prefix`. With `append`, the
 * parts continue the ones already shown (a text part extends the last text block); without, they
 * replace them (blocks no longer used are removed).
 */
export function showParts(
  turn: TurnState,
  messageId: string,
  prefix: string,
  parts: unknown[],
  append: boolean,
): TimelineEvent[] {
  const view = turn.artifacts.get(prefix) ?? { blocks: [] };
  const events: TimelineEvent[] = [];
  const old = view.blocks;
  const blocks: string[] = append ? [...old] : [];
  const texts = new Map<string, string>();
  for (const raw of parts) {
    const part = obj(raw);
    const text =
      (part.kind === "text" || part.kind === undefined) && typeof part.text === "string" ? part.text : undefined;
    const last = blocks.at(-1);
    if (text !== undefined) {
      // Adjacent text parts (and a text chunk appended to a text part) are one block.
      if (last && !last.endsWith(":x")) {
        texts.set(last, (texts.get(last) ?? turn.texts.get(last) ?? "") + text);
      } else {
        const id = `${prefix}:${blocks.length}`;
        blocks.push(id);
        texts.set(id, text);
      }
      continue;
    }
    const id = `${prefix}:${blocks.length}:x`;
    const b = partBlock(part, id);
    if (!b) continue;
    blocks.push(id);
    turn.blockMessage.set(id, messageId);
    events.push({ type: "block.updated", messageId, block: b });
  }
  for (const [id, text] of texts) events.push(...setText(turn, messageId, id, "text", text));
  if (!append) {
    for (const id of old) {
      if (blocks.includes(id)) continue;
      turn.texts.delete(id);
      events.push({ type: "block.removed", messageId: turn.blockMessage.get(id) ?? messageId, blockId: id });
    }
  }
  view.blocks = blocks;
  turn.artifacts.set(prefix, view);
  return events;
}
