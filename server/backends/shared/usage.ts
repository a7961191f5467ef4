/** Usage as the protocols report it, made canonical (each normalizer reads its own field names). */
import type { Usage } from "@/lib/model";

/** The token counts and cost of one report, as read from the protocol's frame (undefined: not reported). */
export interface UsageCounts {
  input?: number;
  output?: number;
  reasoning?: number;
  cacheRead?: number;
  cacheWrite?: number;
  cost?: number;
}

/**
 * The canonical usage of a report, or undefined when it has neither input nor output tokens. Zero
 * reasoning and cache counts are left out; a cost is kept when reported, zero included.
 */
export function usageOf(c: UsageCounts): Usage | undefined {
  if (c.input === undefined && c.output === undefined) return undefined;
  const u: Usage = { inputTokens: c.input ?? 0, outputTokens: c.output ?? 0 };
  if (c.reasoning) u.reasoningTokens = c.reasoning;
  if (c.cacheRead) u.cacheReadTokens = c.cacheRead;
  if (c.cacheWrite) u.cacheWriteTokens = c.cacheWrite;
  if (c.cost !== undefined) u.costUsd = c.cost;
  return u;
}
