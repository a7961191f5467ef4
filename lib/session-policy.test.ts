import { describe, expect, it } from "vitest";
import { Capabilities } from "./model";
import {
  actionReason,
  compactReason,
  forkMessageReason,
  promptReason,
  type SessionPolicyInput,
} from "./session-policy";

const input = (over: Partial<SessionPolicyInput> = {}, caps: Partial<Capabilities> = {}): SessionPolicyInput => ({
  backend: { capabilities: Capabilities.parse({ fork: true, compact: true, rename: true, ...caps }) },
  label: "Agent",
  link: "connected",
  busy: false,
  ...over,
});

describe("session policy", () => {
  it("names what the backend cannot do first, then a down backend, then a busy agent", () => {
    expect(actionReason(input({ link: "down", busy: true }), "revert")).toBe("Agent cannot revert or unrevert changes");
    expect(actionReason(input({ link: "down", busy: true }), "fork")).toBe("The backend is down");
    expect(actionReason(input({ busy: true }), "fork")).toBe("Wait for the agent to finish this turn");
    expect(actionReason(input({ busy: true }), "rename", false)).toBeUndefined();
    expect(actionReason(input(), "fork")).toBeUndefined();
  });

  it("forks from a message only where the backend forks messages", () => {
    expect(forkMessageReason(input())).toBe(
      "Agent cannot fork from a message: use Fork session in the session menu to fork all of it",
    );
    expect(forkMessageReason(input({}, { forkMessages: true }))).toBeUndefined();
  });

  it("compacts only a conversation with messages", () => {
    expect(compactReason(input(), 0)).toBe("Nothing to compact yet");
    expect(compactReason(input(), 3)).toBeUndefined();
  });

  it("takes prompts once loaded and while the backend is up", () => {
    expect(promptReason(false, "connected")).toBe("Loading…");
    expect(promptReason(true, "down")).toBe("The backend is down — waiting for it to come back");
    expect(promptReason(true, "reconnecting")).toBeUndefined();
  });
});
