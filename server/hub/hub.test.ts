import { afterEach, describe, expect, it } from "vitest";
import type { Session } from "@/lib/model";
import type { BackendAdapter, LoadedSession } from "../backends/types";
import { Hub, withinBounds } from "./hub";

const session: Session = { id: "s", backendId: "b", title: "T", createdAt: 1, updatedAt: 1, status: "idle" };

/** A backend whose loads wait until released, and count themselves. */
function slowBackend() {
  let loads = 0;
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const adapter = {
    async loadSession(): Promise<LoadedSession> {
      loads++;
      await gate;
      return {
        session,
        messages: [
          { id: "m1", sessionId: "s", role: "user", createdAt: 1, blocks: [{ id: "p", kind: "text", text: "hello" }] },
        ],
        interrupts: [],
        todos: [],
      };
    },
  } as unknown as BackendAdapter;
  return { adapter, release, loads: () => loads };
}

let hub: Hub | undefined;
afterEach(() => hub?.stop());

describe("Hub.open", () => {
  it("shares one load between callers (the session page's warm-up and the snapshot route), and keeps what was published meanwhile", async () => {
    const b = slowBackend();
    hub = new Hub((id) => (id === "b" ? b.adapter : undefined));
    const warm = hub.open("b", "s");
    const route = hub.open("b", "s");
    hub.publish("b", "s", { type: "session.status", status: "busy" });
    b.release();
    const [c1, c2] = await Promise.all([warm, route]);
    expect(c1).toBe(c2);
    expect(b.loads()).toBe(1);
    const snap = c1.snapshot();
    expect(snap.messages.map((m) => m.id)).toEqual(["m1"]);
    expect(snap.session.status).toBe("busy");
    expect(await hub.open("b", "s")).toBe(c1);
    expect(b.loads()).toBe(1);
  });

  it("refuses an unknown backend with a 404", async () => {
    hub = new Hub(() => undefined);
    await expect(hub.open("nope", "s")).rejects.toMatchObject({ status: 404 });
  });
});

describe("Hub interrupt bounds", () => {
  it("never passes on an interrupt over the bounds: a notice takes its place, in the session and in a load", async () => {
    const b = slowBackend();
    hub = new Hub((id) => (id === "b" ? b.adapter : undefined));
    const opening = hub.open("b", "s");
    b.release();
    const ch = await opening;
    const huge = {
      id: "int_big",
      sessionId: "s",
      kind: "input" as const,
      createdAt: 1,
      title: "Form",
      messageId: "m1",
      input: {
        prompt: "Fill",
        schema: {
          type: "object" as const,
          properties: { blob: { type: "string" as const, description: "x".repeat(5 * 1024 * 1024) } },
        },
      },
    };
    hub.publish("b", "s", { type: "interrupt.requested", interrupt: huge });
    const snap = ch.snapshot();
    expect(snap.interrupts).toEqual([]);
    const blocks = snap.messages.find((m) => m.id === "m1")?.blocks ?? [];
    expect(blocks.some((x) => x.kind === "notice" && x.text.startsWith("The console refused this form"))).toBe(true);
    expect(JSON.stringify(snap).length).toBeLessThan(100_000);
    expect(withinBounds([huge])).toEqual([]);
  });
});
