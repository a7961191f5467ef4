import { isTextMime, parseDataUrl } from "@/lib/attachments";
import type { PromptBody } from "@/lib/api";

/**
 * A prompt's parts as /api takes them: the text, and the files by URI. A text file the user attached
 * goes as text, named, after what they typed: OpenCode 1.18's /api hands every file to the provider
 * as media, and its OpenAI Chat lowering takes images only ("does not support media type
 * text/markdown"), so the turn would fail (the same reason mentions go as text, capabilities.ts).
 */
export function apiPrompt(parts: PromptBody["parts"]): { text: string; files: { uri: string; name?: string }[] } {
  const texts: string[] = [];
  const files: { uri: string; name?: string }[] = [];
  for (const p of parts) {
    if (p.type === "text") {
      texts.push(p.text);
      continue;
    }
    const d = parseDataUrl(p.url);
    if (d && isTextMime(d.mime)) {
      const name = (p.filename ?? "file").replace(/["\n]/g, "");
      texts.push(`<file name="${name}">\n${Buffer.from(d.base64, "base64").toString("utf8")}\n</file>`);
    } else files.push({ uri: p.url, ...(p.filename ? { name: p.filename } : {}) });
  }
  return { text: texts.join("\n\n"), files };
}
