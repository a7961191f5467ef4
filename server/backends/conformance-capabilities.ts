/**
 * The conformance check of capabilities (beside ./conformance.ts): every declared capability is
 * implemented and answers, every undeclared one is refused by the route layer's gate
 * (server/capability.ts) with a 409.
 */
import { expect, it } from "vitest";
import type { CapabilityName } from "@/lib/capabilities";
import { capability } from "../capability";
import { isApiError } from "../errors";
import type { ConformanceHost } from "./conformance-harness";

/** Registers the check (inside the suite's describe). */
export function capabilityChecks(h: ConformanceHost) {
  it("gates capabilities: the declared ones answer, the undeclared ones are refused with a 4xx", async () => {
    const adapter = h.adapter();
    const target = h.target();
    const caps = adapter.info().capabilities;
    const { session, channel } = await h.newSession("conformance capabilities");
    const gated: Partial<Record<CapabilityName, ((...args: never[]) => unknown) | undefined>> = {
      fork: adapter.fork,
      revert: adapter.revert,
      diff: adapter.diff,
      compact: adapter.compact,
      models: adapter.models,
      history: adapter.loadMessages,
      abort: adapter.abort,
      rename: adapter.renameSession,
      delete: adapter.deleteSession,
      agents: adapter.agents,
      children: adapter.children,
    };
    for (const [cap, fn] of Object.entries(gated) as [CapabilityName, ((...args: never[]) => unknown) | undefined][]) {
      if (caps[cap] === true) {
        expect(fn, `${cap} is declared, so the adapter implements it`).toBeTypeOf("function");
        continue;
      }
      let status: number | undefined;
      try {
        capability(adapter, cap, fn);
      } catch (err) {
        status = isApiError(err) ? err.status : 500;
        expect((err as Error).message).toMatch(/ cannot /);
      }
      expect(status, `${cap} is not declared`).toBe(409);
    }
    // A backend's own file search for `@` mentions is declared and implemented together.
    if (caps.mentions?.search === "backend") {
      expect(adapter.findFiles, "mentions.search is backend, so the adapter searches files").toBeTypeOf("function");
      expect(Array.isArray(await adapter.findFiles!(session.id, "", 5))).toBe(true);
    }
    // The declared ones answer.
    if (caps.models) expect((await capability(adapter, "models", adapter.models)()).items.length).toBeGreaterThan(0);
    if (caps.agents) expect(Array.isArray((await capability(adapter, "agents", adapter.agents)()).items)).toBe(true);
    if (caps.diff) expect(Array.isArray(await capability(adapter, "diff", adapter.diff)(session.id))).toBe(true);
    if (caps.children) expect(await capability(adapter, "children", adapter.children)(session.id)).toEqual([]);
    if (caps.search)
      expect(
        (await adapter.listSessions({ limit: 200, search: "conformance capabilities" })).items.map((s) => s.id),
      ).toContain(session.id);
    if (caps.abort) await capability(adapter, "abort", adapter.abort)(session.id); // nothing running: a no-op, not an error
    if (caps.directories) {
      const dir = session.directory;
      expect(dir, "a backend with directories says where a session runs").toBeTruthy();
      const other = await adapter.createSession({ title: "conformance directory", directory: dir! });
      expect(other.directory).toBe(dir);
    }
    if (caps.delete) {
      const doomed = await adapter.createSession({ title: "conformance delete" });
      await capability(adapter, "delete", adapter.deleteSession)(doomed.id);
      expect((await adapter.listSessions({ limit: 200 })).items.map((s) => s.id)).not.toContain(doomed.id);
    }
    if (caps.revert) {
      target.resetModel();
      target.enqueue({ text: "Something to revert." });
      await h.runTurn(channel, "make something to revert");
      const user = channel.state.messages.find((m) => m.role === "user")!;
      expect((await capability(adapter, "revert", adapter.revert)(session.id, user.id)).revert?.messageId).toBe(
        user.id,
      );
      expect((await capability(adapter, "revert", adapter.unrevert)(session.id)).revert).toBeUndefined();
    }
  });
}
