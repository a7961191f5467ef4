import { describe, expect, it } from "vitest";
import type { Message } from "@/lib/model";
import { pageMessages } from "../backends/shared/session-list";
import { withOlderMessages } from "./history";

const all: Message[] = Array.from({ length: 10 }, (_, i) => ({
  id: `m${i}`,
  sessionId: "s",
  role: "user",
  createdAt: i,
  blocks: [],
}));
const ids = (ms: Message[]) => ms.map((m) => m.id);

describe("withOlderMessages", () => {
  it("puts older pages in front until enough are held, and says where the session goes on", async () => {
    const asked: string[] = [];
    const adapter = {
      loadMessages: async (_s: string, q: { before?: string; limit: number }) => {
        asked.push(`${q.before}:${q.limit}`);
        // A page overlapping what is held (m6) is not added twice.
        const page = pageMessages(all, { before: q.before, limit: Math.min(q.limit, 2) });
        return q.before === "m7" ? { ...page, items: [...page.items, all[7]!] } : page;
      },
    };
    const r = await withOlderMessages(adapter, "s", all.slice(7), "m7", { upTo: 6, pageSize: 5, maxPages: 9 });
    expect(ids(r.messages)).toEqual(["m4", "m5", "m6", "m7", "m8", "m9"]);
    expect(asked).toEqual(["m7:3", "m5:1"]);
    expect(r.cursor).toBe("m4");
  });

  it("reads to the start when asked for everything; adds nothing without paging", async () => {
    const adapter = { loadMessages: async (_s: string, q: { before?: string; limit: number }) => pageMessages(all, q) };
    const whole = await withOlderMessages(adapter, "s", all.slice(8), "m8", {
      upTo: Number.POSITIVE_INFINITY,
      pageSize: 3,
      maxPages: 50,
    });
    expect(ids(whole.messages)).toEqual(ids(all));
    expect(whole.cursor).toBeUndefined();
    const none = await withOlderMessages({}, "s", all.slice(8), "m8", { upTo: 100, pageSize: 3, maxPages: 5 });
    expect(ids(none.messages)).toEqual(["m8", "m9"]);
    expect(none.cursor).toBe("m8");
  });
});
