import { EmptyQuery, InterruptAnswer } from "@/lib/api";
import { checkInputValues } from "@/lib/input-form";
import { ApiError } from "@/server/errors";
import { json, readBody, readQuery, requestPerson, route } from "@/server/http";
import { decisionOf } from "@/server/sessions/attribution";
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
    const { backends, hub, attribution } = await app();
    const adapter = backends.require(backendId);
    const answerInterrupt = adapter.answerInterrupt?.bind(adapter);
    if (!answerInterrupt) throw ApiError.conflict(`${adapter.info().label} does not ask for permission or input`);
    const state = hub.sessionState(backendId, sessionId);
    const pending =
      adapter.pendingInterrupts?.().find((i) => i.id === interruptId) ??
      state?.interrupts.find((i) => i.id === interruptId);
    let sent = answer;
    if ("action" in answer && answer.action === "accept") {
      const schema = pending?.kind === "input" ? pending.input?.schema : undefined;
      if (schema) {
        const checked = checkInputValues(schema, answer.values ?? {});
        if (!checked.ok) throw ApiError.badRequest("The form's values do not fit", { fields: checked.errors });
        sent = { action: "accept", values: checked.values };
      }
    }
    // Who answered, and how, kept before the answer goes out: the backend's `interrupt.resolved`
    // may come back before the call returns (docs/people.md, "Attribution").
    const who = requestPerson(req);
    if (who)
      attribution.interruptAnswered(
        backendId,
        sessionId,
        pending,
        interruptId,
        state?.messages.at(-1)?.id,
        who,
        decisionOf(answer),
      );
    try {
      await answerInterrupt(sessionId, interruptId, sent);
    } catch (err) {
      if (who) attribution.answerFailed(backendId, sessionId, interruptId);
      throw err;
    }
    return json({ ok: true });
  },
);
