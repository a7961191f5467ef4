import { describe, expect, it } from "vitest";
import type { Session } from "@/lib/model";
import { isApiError } from "../../errors";
import { FIRST_PAGE_MESSAGES, firstPage, pageMessages, pageSessions } from "./session-list";

const s = (id: string, title: string, updatedAt: number): Session => ({
  id,
  backendId: "b",
  title,
  createdAt: 0,
  updatedAt,
  status: "idle",
});

describe("pageSessions", () => {
  it("searches titles, sorts newest first and pages with a cursor", () => {
    const all = [s("a", "Alpha fix", 1), s("b", "beta", 3), s("c", "ALPHA test", 2), s("d", "gamma", 4)];
    const first = pageSessions(all, { limit: 2 });
    expect(first.items.map((x) => x.id)).toEqual(["d", "b"]);
    const second = pageSessions(all, { limit: 2, cursor: first.nextCursor! });
    expect(second.items.map((x) => x.id)).toEqual(["c", "a"]);
    expect(second.nextCursor).toBeUndefined();
    expect(pageSessions(all, { limit: 10, search: "alpha" }).items.map((x) => x.id)).toEqual(["c", "a"]);
  });
});

describe("pageMessages", () => {
  const msgs = ["m1", "m2", "m3", "m4", "m5"].map((id) => ({ id }));
  it("pages backwards from the newest, chronological within a page", () => {
    const p1 = pageMessages(msgs, { limit: 2 });
    expect(p1).toEqual({ items: [{ id: "m4" }, { id: "m5" }], nextCursor: "m4" });
    const p2 = pageMessages(msgs, { limit: 2, before: p1.nextCursor! });
    expect(p2).toEqual({ items: [{ id: "m2" }, { id: "m3" }], nextCursor: "m2" });
    expect(pageMessages(msgs, { limit: 2, before: "m2" })).toEqual({ items: [{ id: "m1" }] });
    expect(pageMessages([], { limit: 2 })).toEqual({ items: [] });
  });
  it("answers 404 for an unknown cursor", () => {
    let status: number | undefined;
    try {
      pageMessages(msgs, { limit: 2, before: "nope" });
    } catch (err) {
      status = isApiError(err) ? err.status : undefined;
    }
    expect(status).toBe(404);
  });
});

describe("firstPage", () => {
  const msgs = Array.from({ length: FIRST_PAGE_MESSAGES + 5 }, (_, i) => ({ id: `m${i}` }));
  it("holds the newest FIRST_PAGE_MESSAGES, with the cursor that pages in the older ones", () => {
    const first = firstPage(msgs);
    expect(first.messages).toEqual(msgs.slice(5));
    expect(first.olderCursor).toBe("m5");
    expect(pageMessages(msgs, { limit: 100, before: first.olderCursor! }).items).toEqual(msgs.slice(0, 5));
  });
  it("has no cursor when the whole transcript fits", () => {
    expect(firstPage(msgs.slice(0, 3))).toEqual({ messages: msgs.slice(0, 3) });
    expect(firstPage([])).toEqual({ messages: [] });
  });
});
