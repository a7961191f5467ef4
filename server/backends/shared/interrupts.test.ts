import { describe, expect, it } from "vitest";
import type { Interrupt, TimelineEvent } from "@/lib/model";
import { isApiError } from "../../errors";
import { InterruptBook } from "./interrupts";

function setup() {
  const emitted: { sessionId: string; events: TimelineEvent[] }[] = [];
  const book = new InterruptBook<string>({
    emit: (sessionId, events) => emitted.push({ sessionId, events }),
    idPrefix: "perm",
    remember: 2,
  });
  const answers: string[] = [];
  const raise = (sessionId: string, key: string | undefined, epoch = 1) => {
    const interrupt: Interrupt = {
      id: book.newId(),
      sessionId,
      kind: "question",
      createdAt: 1,
      question: { questions: [{ question: "Go?", options: [] }] },
    } as unknown as Interrupt;
    return book.raise({
      sessionId,
      interrupt,
      epoch,
      respond: (r) => answers.push(`${interrupt.id}:${r}`),
      ...(key !== undefined ? { key } : {}),
    });
  };
  const statusOf = (f: () => unknown) => {
    try {
      f();
      return 200;
    } catch (err) {
      return isApiError(err) ? err.status : 500;
    }
  };
  return { book, emitted, answers, raise, statusOf };
}

describe("InterruptBook", () => {
  it("raises with a console id, answers once (404 unknown or other session, 409 when answered)", () => {
    const { book, emitted, answers, raise, statusOf } = setup();
    const { interrupt } = raise("s1", undefined);
    expect(interrupt.id).toMatch(/^perm_/);
    expect(emitted).toEqual([{ sessionId: "s1", events: [{ type: "interrupt.requested", interrupt }] }]);
    expect(book.list("s1")).toEqual([interrupt]);
    expect(book.list("s2")).toEqual([]);
    expect(statusOf(() => book.take("s2", interrupt.id))).toBe(404);
    expect(statusOf(() => book.take("s1", "perm_nope"))).toBe(404);
    expect(book.take("s1", interrupt.id).interrupt).toBe(interrupt);
    expect(book.settle(interrupt.id, "allow_once", "yes")).toBe(true);
    expect(answers).toEqual([`${interrupt.id}:yes`]);
    expect(emitted.at(-1)).toEqual({
      sessionId: "s1",
      events: [{ type: "interrupt.resolved", interruptId: interrupt.id, outcome: "allow_once" }],
    });
    expect(book.settle(interrupt.id, "allow_once", "again")).toBe(false);
    expect(statusOf(() => book.take("s1", interrupt.id))).toBe(409);
    expect(book.size).toBe(0);
  });

  it("expires what matches (a dead process's requests) with a cancelled answer", () => {
    const { book, emitted, answers, raise } = setup();
    const old = raise("s1", undefined, 1).interrupt;
    const live = raise("s1", undefined, 2).interrupt;
    expect(book.expire((p) => p.epoch === 1, "cancelled")).toBe(1);
    expect(answers).toEqual([`${old.id}:cancelled`]);
    expect(emitted.at(-1)!.events).toEqual([{ type: "interrupt.resolved", interruptId: old.id, outcome: "cancelled" }]);
    expect(book.list()).toEqual([live]);
  });

  it("keeps one interrupt when the backend asks again for the same request after a reconnect", () => {
    const { book, emitted, answers, raise } = setup();
    const first = raise("s1", "rpc-0", 1);
    const again = raise("s1", "rpc-0", 2);
    expect(again).toEqual({ interrupt: first.interrupt, reraised: true });
    expect(emitted).toHaveLength(1);
    // The same upstream key in another session is another request.
    expect(raise("s2", "rpc-0").reraised).toBe(false);
    // The answer goes to the newest asker.
    book.settle(first.interrupt.id, "answered", "ok");
    expect(answers).toHaveLength(1);
    expect(answers[0]).toMatch(/:ok$/);
    expect(answers[0]).not.toContain(first.interrupt.id); // the first responder was replaced
    expect(book.get(first.interrupt.id)).toBeUndefined();
    // Once settled, the key may be asked again as a new interrupt.
    expect(raise("s1", "rpc-0").reraised).toBe(false);
  });

  it("remembers a bounded number of answered ids", () => {
    const { book, raise, statusOf } = setup();
    const ids = [raise("s", undefined), raise("s", undefined), raise("s", undefined)].map((r) => r.interrupt.id);
    for (const id of ids) book.settle(id, "cancelled", "x");
    expect(statusOf(() => book.take("s", ids[0]!))).toBe(404);
    expect(statusOf(() => book.take("s", ids[2]!))).toBe(409);
  });
});

describe("InterruptBook bounds", () => {
  it("refuses an interrupt over the bounds: not kept, not published, the agent told, a notice instead", () => {
    const emitted: TimelineEvent[] = [];
    const book = new InterruptBook<string>({ emit: (_s, events) => emitted.push(...events) });
    const refusals: string[] = [];
    const interrupt: Interrupt = {
      id: book.newId(),
      sessionId: "s1",
      kind: "input",
      createdAt: 1,
      title: "Form",
      messageId: "m1",
      input: {
        prompt: "Fill",
        schema: { type: "object", properties: { blob: { type: "string", description: "x".repeat(5 * 1024 * 1024) } } },
      },
    };
    const r = book.raise({
      sessionId: "s1",
      interrupt,
      epoch: 1,
      respond: () => undefined,
      refuse: (m) => refusals.push(m),
    });
    expect(r.refused).toMatch(/^The console refused this form: the request is .* kB; the console takes at most 256 kB/);
    expect(refusals).toEqual([r.refused]);
    expect(book.list()).toEqual([]);
    expect(emitted.some((e) => e.type === "interrupt.requested")).toBe(false);
    expect(emitted).toEqual([
      {
        type: "block.updated",
        messageId: "m1",
        block: { id: `${interrupt.id}:refused`, kind: "notice", level: "warn", text: r.refused },
      },
    ]);
  });
});
