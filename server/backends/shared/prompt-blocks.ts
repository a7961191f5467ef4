import type { PromptPart } from "@/lib/api";
import type { Block } from "@/lib/model";

/**
 * A prompt's parts as the console's user message shows them (images as elided data URLs): block ids
 * `<messageId>-b<i>`; a file without a name is called `unnamed`.
 */
export function promptBlocks(parts: readonly PromptPart[], messageId: string, unnamed = "file"): Block[] {
  return parts.map(
    (p, i): Block =>
      p.type === "text"
        ? { id: `${messageId}-b${i}`, kind: "text", text: p.text }
        : {
            id: `${messageId}-b${i}`,
            kind: "file",
            name: p.filename ?? unnamed,
            mime: p.mime,
            url: p.url.startsWith("data:") ? `data:${p.mime};base64,…` : p.url,
          },
  );
}
