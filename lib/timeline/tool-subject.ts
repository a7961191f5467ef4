import type { ToolBlock } from "../model";

/**
 * The one-line subject of a tool call's input (its command, path, pattern, address or description,
 * else its title; "" when it has none): the export's tool lines, the search index and the compare
 * board's condensed rows all say a tool call this way.
 */
export function toolSubject(b: ToolBlock): string {
  const i = b.input;
  const pick = (k: string) =>
    typeof i[k] === "string" && (i[k] as string).trim() !== "" ? (i[k] as string) : undefined;
  return (
    pick("command") ??
    pick("cmd") ??
    pick("filePath") ??
    pick("file_path") ??
    pick("path") ??
    pick("pattern") ??
    pick("query") ??
    pick("url") ??
    pick("description") ??
    pick("prompt") ??
    b.title ??
    ""
  );
}
