import "server-only";
import type { InterruptAnswer } from "@/lib/api";
import type { Interrupt } from "@/lib/model";
import { ApiError } from "../../errors";

/**
 * The answers to a question interrupt, checked against its questions (400 when they do not fit):
 * one array per question, each trimmed and non-empty, a single pick unless the question is
 * `multiple`, and only the offered labels unless the question takes custom text.
 */
export function questionAnswers(it: Pick<Interrupt, "questions">, answer: InterruptAnswer): string[][] {
  if (!("answers" in answer))
    throw ApiError.badRequest(
      "A question is answered with {answers: string[][]} (one array per question) or {dismiss: true}",
    );
  const qs = it.questions ?? [];
  if (answer.answers.length !== qs.length)
    throw ApiError.badRequest(`Expected ${qs.length} answer(s), one per question`);
  return answer.answers.map((a, i) => {
    const q = qs[i]!;
    const picked = a.map((x) => x.trim()).filter(Boolean);
    if (picked.length === 0) throw ApiError.badRequest(`Question ${i + 1} needs an answer`);
    if (!q.multiple && picked.length > 1) throw ApiError.badRequest(`Question ${i + 1} takes a single answer`);
    for (const label of picked) {
      if (!q.options.some((o) => o.label === label) && q.custom === false)
        throw ApiError.badRequest(`"${label}" is not an option of question ${i + 1}`);
    }
    return picked;
  });
}
