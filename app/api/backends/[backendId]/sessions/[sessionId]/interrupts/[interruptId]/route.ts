import { EmptyQuery, InterruptAnswer } from "@/lib/api";
import { checkInputValues } from "@/lib/input-form";
import { ApiError } from "@/server/errors";
import { json, readBody, readQuery, route } from "@/server/http";
import { app, type SessionParams } from "@/server/app-access";

export const dynamic = "force-dynamic";

/**
 * Answer a permission, question or input: `{decision, message?}` · `{answers}` · `{dismiss: true}` ·
 * `{text}` · `{action, values?}`. A form's values are checked against the interrupt's schema here
 * (lib/input-form.ts, the same rules as the browser's form): 400 with a message per field.
 */
export const POST = route<SessionParams & { interruptId: string }>(
  async (req, { backendId, sessionId, interruptId }) => {
    readQuery(req, EmptyQuery);
    const answer = await readBody(req, InterruptAnswer);
    const { backends, hub } = await app();
    const adapter = backends.require(backendId);
    if (!adapter.answerInterrupt)
      throw ApiError.conflict(`${adapter.info().label} does not ask for permission or input`);
    if ("action" in answer && answer.action === "accept") {
      const pending =
        adapter.pendingInterrupts?.().find((i) => i.id === interruptId) ??
        hub.sessionState(backendId, sessionId)?.interrupts.find((i) => i.id === interruptId);
      const schema = pending?.kind === "input" ? pending.input?.schema : undefined;
      if (schema) {
        const checked = checkInputValues(schema, answer.values ?? {});
        if (!checked.ok) throw ApiError.badRequest("The form's values do not fit", { fields: checked.errors });
        await adapter.answerInterrupt(sessionId, interruptId, { action: "accept", values: checked.values });
        return json({ ok: true });
      }
    }
    await adapter.answerInterrupt(sessionId, interruptId, answer);
    return json({ ok: true });
  },
);
