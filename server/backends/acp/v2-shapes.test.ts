import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readAuthMethods } from "./auth";
import { v2ConfigOptions, v2Drops, v2Init, v2Setup } from "./v2-shapes";

/** The frames recorded from the real adapters speaking v2 (testing/record-v2.ts). */
const frames = (file: string) =>
  fs
    .readFileSync(path.join(import.meta.dirname, "fixtures", file), "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => (JSON.parse(l) as { msg: Record<string, unknown> }).msg);
const FILES = ["codex-acp-v2.jsonl", "claude-code-acp-v2.jsonl"];

describe("ACP v2 shapes read in v1 terms", () => {
  it("the adapters' initialize results: version, capabilities (sessions declared as a whole), info, auth methods", () => {
    const codex = v2Init((frames("codex-acp-v2.jsonl")[1]!.result as object) ?? {});
    expect(codex.protocolVersion).toBe(2);
    expect(codex.agentInfo).toEqual({ name: "@agentclientprotocol/codex-acp", title: "Codex", version: "2.6.0" });
    expect(codex.agentCapabilities).toEqual({
      loadSession: true,
      promptCapabilities: { image: true, audio: false, embeddedContext: true },
      sessionCapabilities: { list: {}, resume: {}, close: {}, delete: {}, fork: {} },
    });
    // auth.ts reads v1's `id`: v2's `methodId` is carried over, the `_meta` kept (the key-taking method)
    expect(readAuthMethods(codex.raw)).toMatchObject([{ id: "api-key", name: "API Key", type: "agent", apiKey: true }]);
    const claude = v2Init(frames("claude-code-acp-v2.jsonl")[1]!.result);
    expect(claude.agentInfo?.name).toBe("@agentclientprotocol/claude-agent-acp");
    expect(claude.agentCapabilities.sessionCapabilities).toMatchObject({ list: {}, resume: {}, close: {}, fork: {} });
    // no `session` capability: no session methods declared
    expect(
      v2Init({ protocolVersion: 2, info: { name: "x", version: "1" }, capabilities: {} }).agentCapabilities,
    ).toEqual({
      loadSession: false,
      promptCapabilities: { image: false, audio: false, embeddedContext: false },
      sessionCapabilities: {},
    });
  });

  it("config options' configId becomes v1's id; other fields stay", () => {
    const res = frames("codex-acp-v2.jsonl").find((m) => (m.result as { sessionId?: string })?.sessionId)!.result as {
      configOptions: { configId: string }[];
    };
    const setup = v2Setup(res) as { configOptions: { id: string; configId: string }[] };
    expect(setup.configOptions.map((o) => o.id)).toEqual(res.configOptions.map((o) => o.configId));
    expect(v2ConfigOptions([{ configId: "m", id: "kept" }])).toEqual([{ configId: "m", id: "kept" }]);
  });

  it("v2Drops: every update the real adapters sent passes the SDK's guards; shapes the SDK would drop do not", () => {
    const updates = FILES.flatMap(frames)
      .filter((m) => m.method === "session/update")
      .map((m) => (m.params as { update: unknown }).update);
    expect(updates.length).toBeGreaterThan(40);
    expect(updates.filter(v2Drops)).toEqual([]);
    // v1's message chunk, without v2's required messageId
    expect(v2Drops({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "x" } })).toBe(true);
    expect(v2Drops("not an object")).toBe(true);
    // custom and unknown kinds are delivered by the SDK (v1-only kinds are caught after it: v2-updates.ts)
    expect(v2Drops({ sessionUpdate: "_vendor/thing", x: 1 })).toBe(false);
    expect(v2Drops({ sessionUpdate: "tool_call", toolCallId: "t" })).toBe(false);
  });
});
