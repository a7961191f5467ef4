import { describe, expect, it } from "vitest";
import { agentUserOf, environmentFor, parsePasswdLine } from "./agent-user";

const lookup = (u: string) =>
  u === "agent" || u === "1001" ? { name: "agent", uid: 1001, gid: 1001, home: "/home/agent" } : undefined;

describe("SWITCHBOARD_AGENT_USER", () => {
  it("is unset by default", () => {
    expect(agentUserOf({}, { uid: 0 })).toBeUndefined();
  });

  it("names a user by name, uid or uid:gid", () => {
    expect(agentUserOf({ SWITCHBOARD_AGENT_USER: "agent" }, { uid: 0, lookup })).toEqual({
      name: "agent",
      uid: 1001,
      gid: 1001,
      home: "/home/agent",
    });
    expect(agentUserOf({ SWITCHBOARD_AGENT_USER: "1001" }, { uid: 0, lookup })?.uid).toBe(1001);
    expect(agentUserOf({ SWITCHBOARD_AGENT_USER: "2000:3000" }, { uid: 0, lookup })).toEqual({
      name: "2000:3000",
      uid: 2000,
      gid: 3000,
    });
  });

  it("is refused, so no agent starts, when it cannot be honoured", () => {
    expect(() => agentUserOf({ SWITCHBOARD_AGENT_USER: "agent" }, { uid: 1000, lookup })).toThrow(/as root/);
    expect(() => agentUserOf({ SWITCHBOARD_AGENT_USER: "ghost" }, { uid: 0, lookup })).toThrow(/no user/);
    expect(() => agentUserOf({ SWITCHBOARD_AGENT_USER: "0:0" }, { uid: 0, lookup })).toThrow(/not be root/);
    expect(() => agentUserOf({ SWITCHBOARD_AGENT_USER: "agent" }, { uid: 0, lookup, platform: "win32" })).toThrow(
      /Windows/,
    );
  });

  it("reads passwd lines", () => {
    expect(parsePasswdLine("nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin")).toEqual({
      name: "nobody",
      uid: 65534,
      gid: 65534,
      home: "/nonexistent",
    });
    expect(parsePasswdLine("# comment")).toBeUndefined();
    expect(parsePasswdLine("x:x:a:b:::")).toBeUndefined();
  });

  it("gives the agent that user's HOME, USER and LOGNAME, unless its backend sets them", () => {
    const user = { name: "agent", uid: 1001, gid: 1001, home: "/home/agent" };
    const env = { PATH: "/usr/bin", HOME: "/root", USER: "root", LOGNAME: "root" };
    expect(environmentFor(user, env)).toEqual({
      PATH: "/usr/bin",
      HOME: "/home/agent",
      USER: "agent",
      LOGNAME: "agent",
    });
    expect(environmentFor(user, { ...env, HOME: "/srv/agent-home" }, new Set(["HOME"])).HOME).toBe("/srv/agent-home");
  });
});
