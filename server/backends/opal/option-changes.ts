import "server-only";
import type { ModelRef, Session } from "@/lib/model";
import { ApiError } from "../../errors";
import { arr, isObj, obj, str } from "../shared/values";
import type { ModelInfo } from "../types";
import type { OpalContext } from "./context";
import type { Runtime } from "./runtime";
import { THINKING_LEVELS } from "./session-options";

/** Changing a session's model or thinking level, and the models Opal offers. */
export async function setModel(ctx: OpalContext, rt: Runtime, modelId: string) {
  const conn = await ctx.attach(rt);
  let res: Record<string, unknown>;
  try {
    // model/set resets thinking to the request's level (off without one): the session's level goes with it.
    res = obj(
      await conn.request("model/set", {
        session_id: rt.opalId,
        model_id: modelId,
        ...(rt.thinking ? { thinking_level: rt.thinking } : {}),
      }),
    );
  } catch (err) {
    throw ctx.mapError(err, `switch to ${modelId}`);
  }
  rt.model = str(obj(res.model).id) ?? modelId;
  rt.thinking = str(obj(res.model).thinking_level) ?? rt.thinking;
}

export async function setSessionOption(
  ctx: OpalContext,
  sessionId: string,
  optionId: string,
  value: string | boolean,
): Promise<Session> {
  const rt = await ctx.known(sessionId);
  if (typeof value !== "string") throw ApiError.badRequest(`${optionId} takes one of its choices`);
  if (optionId === "model") await setModel(ctx, rt, value);
  else if (optionId === "thinking") {
    if (!(THINKING_LEVELS as readonly string[]).includes(value))
      throw ApiError.badRequest(`Not a thinking level: ${value}`);
    const conn = await ctx.attach(rt);
    const res = obj(
      await conn.request("thinking/set", { session_id: rt.opalId, level: value }).catch((err: unknown) => {
        throw ctx.mapError(err, "change the thinking level");
      }),
    );
    rt.thinking = str(res.thinking_level) ?? value;
  } else throw ApiError.notFound(`Unknown session option: ${optionId}`);
  const s = ctx.sessionOf(rt);
  ctx.save(rt);
  ctx.publish(rt.id, [{ type: "session.updated", session: s }]);
  return s;
}

export async function models(ctx: OpalContext): Promise<{ items: ModelInfo[]; default?: ModelRef }> {
  const res = await ctx.call("list models", "models/list", {});
  const items = arr(res.models)
    .filter(isObj)
    .flatMap((m) => {
      const id = str(m.id);
      return id
        ? [{ provider: str(m.provider) ?? "copilot", providerLabel: "GitHub Copilot", id, label: str(m.name) ?? id }]
        : [];
    });
  return { items, ...(items[0] ? { default: { provider: items[0].provider, id: items[0].id } } : {}) };
}
