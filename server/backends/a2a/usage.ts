/** Usage reported by A2A agents (opencode-a2a's `shared.usage`) as the canonical `Usage`, and its sums. */
import type { Usage } from "@/lib/model";
import { usageOf } from "../shared/usage";
import { num, obj } from "../shared/values";

/** Usage of several model calls as one: tokens and cost summed, the context of the last call. */
export function sumUsage(calls: readonly Usage[]): Usage | undefined {
  const last = calls.at(-1);
  if (!last) return undefined;
  const sum = (f: (u: Usage) => number | undefined) => calls.reduce((a, u) => a + (f(u) ?? 0), 0);
  const has = (f: (u: Usage) => number | undefined) => calls.some((u) => f(u) !== undefined);
  return {
    inputTokens: sum((u) => u.inputTokens),
    outputTokens: sum((u) => u.outputTokens),
    ...(has((u) => u.reasoningTokens) ? { reasoningTokens: sum((u) => u.reasoningTokens) } : {}),
    ...(has((u) => u.cacheReadTokens) ? { cacheReadTokens: sum((u) => u.cacheReadTokens) } : {}),
    ...(has((u) => u.cacheWriteTokens) ? { cacheWriteTokens: sum((u) => u.cacheWriteTokens) } : {}),
    ...(has((u) => u.costUsd) ? { costUsd: sum((u) => u.costUsd) } : {}),
    contextTokens: last.contextTokens ?? last.inputTokens + last.outputTokens,
  };
}

/** opencode-a2a's `shared.usage` (`input_tokens`, `cache_tokens.read_tokens` …) as canonical usage. */
export function toUsage(raw: unknown): Usage | undefined {
  const u = obj(raw);
  const cache = obj(u.cache_tokens);
  const counts = { input: num(u.input_tokens), output: num(u.output_tokens), reasoning: num(u.reasoning_tokens) };
  return usageOf({
    ...counts,
    cacheRead: num(cache.read_tokens),
    cacheWrite: num(cache.write_tokens),
    cost: num(u.cost),
  });
}

/** A session's usage so far with one more turn's added (the context is the turn's). */
export function addUsage(prev: Usage | undefined, u: Usage): Usage {
  return {
    inputTokens: (prev?.inputTokens ?? 0) + u.inputTokens,
    outputTokens: (prev?.outputTokens ?? 0) + u.outputTokens,
    ...(u.reasoningTokens || prev?.reasoningTokens
      ? { reasoningTokens: (prev?.reasoningTokens ?? 0) + (u.reasoningTokens ?? 0) }
      : {}),
    ...(u.cacheReadTokens || prev?.cacheReadTokens
      ? { cacheReadTokens: (prev?.cacheReadTokens ?? 0) + (u.cacheReadTokens ?? 0) }
      : {}),
    ...(u.cacheWriteTokens || prev?.cacheWriteTokens
      ? { cacheWriteTokens: (prev?.cacheWriteTokens ?? 0) + (u.cacheWriteTokens ?? 0) }
      : {}),
    ...(u.costUsd !== undefined || prev?.costUsd !== undefined
      ? { costUsd: (prev?.costUsd ?? 0) + (u.costUsd ?? 0) }
      : {}),
    contextTokens: u.contextTokens ?? u.inputTokens + u.outputTokens,
  };
}
