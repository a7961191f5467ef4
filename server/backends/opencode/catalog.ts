/** OpenCode V1's model and agent lists → the console's. Pure and defensive. */
import type { AgentList, ModelInfo, ModelList } from "@/lib/api";
import { arr, num, obj, str } from "../shared/values";

/**
 * `GET /config/providers` → the model list, each with its context window where known. The default
 * is the configured `model` ("provider/id" from `GET /config`) when it is listed — OpenCode's
 * per-provider defaults are its own ranking, not what a new session uses — else the first
 * provider's default.
 */
export function toModelList(raw: unknown, config?: unknown): ModelList {
  const r = obj(raw);
  const defaults = obj(r.default);
  const items: ModelInfo[] = [];
  for (const p of arr(r.providers)) {
    const po = obj(p);
    const provider = str(po.id);
    if (!provider) continue;
    for (const [key, m] of Object.entries(obj(po.models))) {
      const mo = obj(m);
      const id = str(mo.id) ?? key;
      const context = num(obj(mo.limit).context);
      items.push({
        provider,
        providerLabel: str(po.name) ?? provider,
        id,
        label: str(mo.name) ?? id,
        ...(context ? { contextWindow: context } : {}),
      });
    }
  }
  const configured = str(obj(config).model);
  const slash = configured?.indexOf("/") ?? -1;
  let def: { provider: string; id: string } | undefined =
    configured && slash > 0 ? { provider: configured.slice(0, slash), id: configured.slice(slash + 1) } : undefined;
  if (def && !items.some((m) => m.provider === def!.provider && m.id === def!.id)) def = undefined;
  if (!def) {
    const first = Object.entries(defaults).find(([, v]) => typeof v === "string");
    if (first) def = { provider: first[0], id: first[1] as string };
  }
  for (const m of items) if (def && m.provider === def.provider && m.id === def.id) m.isDefault = true;
  return { items, ...(def ? { default: def } : {}) };
}

/** `GET /agent` → the agents a prompt can pick: visible primary ones (build, plan …). */
export function toAgentList(raw: unknown): AgentList {
  const items = arr(raw).flatMap((a) => {
    const o = obj(a);
    const name = str(o.name);
    const mode = str(o.mode);
    if (!name || o.hidden === true || (mode !== "primary" && mode !== "all")) return [];
    const description = str(o.description);
    return [{ id: name, label: name.charAt(0).toUpperCase() + name.slice(1), ...(description ? { description } : {}) }];
  });
  return {
    items,
    ...(items.some((a) => a.id === "build") ? { default: "build" } : items[0] ? { default: items[0].id } : {}),
  };
}
