import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { resolveConsoleToken } from "../auth/token";
import { agentEnvironment, parsePassEnv, passThrough, unpassableName, withholdFromAgents } from "./agent-env";
import { embeddedOpencodeEnv } from "./opencode-serve";

process.env.SWITCHBOARD_LOG ??= "silent";

const parent = {
  PATH: "/usr/bin",
  HOME: "/home/u",
  LANG: "C.UTF-8",
  LC_ALL: "C",
  TERM: "xterm",
  TMPDIR: "/tmp",
  XDG_CONFIG_HOME: "/home/u/.config",
  HTTPS_PROXY: "http://proxy:3128",
  no_proxy: "localhost",
  SWITCHBOARD_TOKEN: "console-token-0123456789",
  SWITCHBOARD_BACKENDS: "[]",
  OPENCODE_SERVER_PASSWORD: "remote-password-xyz",
  OPENAI_API_KEY: "sk-user-key-0123456789abcdef",
  ANTHROPIC_API_KEY: "sk-ant-0123456789abcdef0123",
  AWS_SECRET_ACCESS_KEY: "aws-secret",
  npm_config_registry: "https://registry.npmjs.org/",
  UNSET: undefined,
};

describe("agentEnvironment", () => {
  it("passes the basics only: no SWITCHBOARD_* variable, no provider key, no other credential", () => {
    const env = agentEnvironment({ parent });
    expect(env).toEqual({
      PATH: "/usr/bin",
      HOME: "/home/u",
      LANG: "C.UTF-8",
      LC_ALL: "C",
      TERM: "xterm",
      TMPDIR: "/tmp",
      XDG_CONFIG_HOME: "/home/u/.config",
      HTTPS_PROXY: "http://proxy:3128",
      no_proxy: "localhost",
    });
  });

  it("adds the names SWITCHBOARD_PASS_ENV lists, never the console's own", () => {
    const env = agentEnvironment({
      parent: { ...parent, SWITCHBOARD_PASS_ENV: "OPENAI_API_KEY, SWITCHBOARD_TOKEN OPENCODE_SERVER_PASSWORD" },
    });
    expect(env.OPENAI_API_KEY).toBe(parent.OPENAI_API_KEY);
    expect(env.ANTHROPIC_API_KEY).toBeUndefined();
    expect(Object.keys(env).filter((k) => k.startsWith("SWITCHBOARD_"))).toEqual([]);
    expect(env.OPENCODE_SERVER_PASSWORD).toBeUndefined();
  });

  it("applies the backend's own variables last, except SWITCHBOARD_* ones", () => {
    const env = agentEnvironment({ parent, own: { HOME: "/agent/home", FOO: "bar", SWITCHBOARD_TOKEN: "x" } });
    expect(env.HOME).toBe("/agent/home");
    expect(env.FOO).toBe("bar");
    expect(env.SWITCHBOARD_TOKEN).toBeUndefined();
  });

  it("never lets an agent inherit a value the console withholds, under any name", () => {
    withholdFromAgents("withheld-value-123456");
    const env = agentEnvironment({
      parent: {
        ...parent,
        LC_SNEAKY: "withheld-value-123456",
        SWITCHBOARD_PASS_ENV: "COPY",
        COPY: "withheld-value-123456",
      },
    });
    expect(Object.values(env)).not.toContain("withheld-value-123456");
    expect(passThrough(["COPY"], { COPY: "withheld-value-123456" })).toEqual({});
    // a backend's own config may still set it (it is that backend's own)
    expect(agentEnvironment({ parent, own: { KEY: "withheld-value-123456" } }).KEY).toBe("withheld-value-123456");
  });
});

describe("the console token", () => {
  it("is withheld from every agent as soon as the console reads it, wherever it comes from", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sb-agent-env-"));
    try {
      const file = path.join(dir, "token");
      fs.writeFileSync(file, "token-from-a-file-0123456789\n", { mode: 0o600 });
      const fromFile = resolveConsoleToken({ SWITCHBOARD_TOKEN_FILE: file }).token;
      const fromEnv = resolveConsoleToken({ SWITCHBOARD_TOKEN: "token-from-the-env-0123456789" }).token;
      const env = agentEnvironment({
        parent: { ...parent, LC_A: fromFile, SWITCHBOARD_PASS_ENV: "B", B: fromEnv },
      });
      expect(Object.values(env)).not.toContain(fromFile);
      expect(Object.values(env)).not.toContain(fromEnv);
      expect(passThrough(["B"], { B: fromEnv })).toEqual({});
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("pass-through names", () => {
  it("reads a backend's passEnv from the console's environment, skipping the console's own", () => {
    expect(passThrough(["OPENAI_API_KEY", "SWITCHBOARD_TOKEN", "MISSING", "OPENCODE_SERVER_PASSWORD"], parent)).toEqual(
      { OPENAI_API_KEY: parent.OPENAI_API_KEY },
    );
  });
  it("parses SWITCHBOARD_PASS_ENV", () => {
    expect(parsePassEnv("A_KEY, B:C  SWITCHBOARD_X bad-name")).toEqual(["A_KEY", "B", "C"]);
    expect(parsePassEnv(undefined)).toEqual([]);
    expect(unpassableName("switchboard_token")).toBe(true);
  });
});

describe("embedded OpenCode", () => {
  it("gets OpenCode's own settings, not the remote server's credentials", () => {
    const env = embeddedOpencodeEnv({
      ...parent,
      OPENCODE_CONFIG_CONTENT: "{}",
      OPENCODE_DISABLE_AUTOUPDATE: "1",
      OPENCODE_BASE_URL: "http://remote",
      OPENCODE_SERVER_USERNAME: "u",
    });
    expect(env).toEqual({ OPENCODE_CONFIG_CONTENT: "{}", OPENCODE_DISABLE_AUTOUPDATE: "1" });
  });
});
