import { describe, expect, it } from "vitest";
import {
  authHelp,
  describeAuthMethods,
  keyedMethod,
  mergeCredentials,
  readAuthMethods,
  satisfiedMethod,
  shouldProbe,
  withKnownMethods,
  withTerminalCommands,
} from "./auth";
import { agentMessage, errorDetails } from "./errors";
import { RequestError } from "@agentclientprotocol/sdk";

/** What codex-acp 0.16.0 answers at initialize (its authMethods). */
const codex = {
  protocolVersion: 1,
  authMethods: [
    {
      id: "chatgpt",
      name: "Login with ChatGPT",
      description: "Use your ChatGPT login with Codex CLI (requires a paid ChatGPT subscription)",
    },
    {
      type: "env_var",
      id: "codex-api-key",
      name: "Use CODEX_API_KEY",
      description: "Requires setting the `CODEX_API_KEY` environment variable.",
      vars: [{ name: "CODEX_API_KEY" }],
    },
    {
      type: "env_var",
      id: "openai-api-key",
      name: "Use OPENAI_API_KEY",
      description: "Requires setting the `OPENAI_API_KEY` environment variable.",
      vars: [{ name: "OPENAI_API_KEY" }],
    },
  ],
};

/**
 * What codex-acp 2.6.0 lists to a client with URL elicitation, with NO_BROWSER unset
 * (src/CodexAuthMethod.ts, `getCodexAuthMethods`, in the 2.6.0 package's dist/index.js).
 */
const codex26 = {
  protocolVersion: 1,
  authMethods: [
    {
      id: "api-key",
      name: "API Key",
      description: "Use an API key to authenticate",
      _meta: { "api-key": { provider: "openai" } },
    },
    { id: "chat-gpt", name: "ChatGPT", description: "Use ChatGPT to authenticate" },
    {
      id: "chat-gpt-device-code",
      name: "ChatGPT (device code)",
      description: "Sign in to ChatGPT by opening a verification page and entering a one-time code",
    },
  ],
};

/**
 * What claude-agent-acp 0.101.0 lists to a client declaring `auth.terminal` (dist/acp-agent.js,
 * `initialize`): terminal methods with the arguments to its own command.
 */
const claude101 = {
  protocolVersion: 1,
  agentInfo: { name: "@agentclientprotocol/claude-agent-acp", version: "0.101.0" },
  authMethods: [
    {
      description: "Use Claude subscription ",
      name: "Claude Subscription",
      id: "claude-ai-login",
      type: "terminal",
      args: ["--cli", "auth", "login", "--claudeai"],
    },
    {
      description: "Use Anthropic Console (API usage billing)",
      name: "Anthropic Console",
      id: "console-login",
      type: "terminal",
      args: ["--cli", "auth", "login", "--console"],
    },
  ],
};

describe("today's adapters' auth methods", () => {
  it("codex-acp 2.6.0: its api-key method takes a key in Settings, and is a reason to probe", () => {
    const m = readAuthMethods(codex26);
    expect(m.map((x) => `${x.id}:${x.type}:${x.apiKey ?? false}`)).toEqual([
      "api-key:agent:true",
      "chat-gpt:agent:false",
      "chat-gpt-device-code:agent:false",
    ]);
    expect(shouldProbe(m, {})).toBe(true);
    expect(keyedMethod(m, {})).toBeUndefined();
    expect(keyedMethod(m, { "api-key": "  " })).toBeUndefined();
    expect(keyedMethod(m, { "api-key": "sk-2" })!.id).toBe("api-key");
    const shown = describeAuthMethods(m, {}, { "api-key": "sk-2" });
    expect(JSON.stringify(shown)).not.toContain("sk-2");
    expect(shown[0]!.vars).toEqual([{ name: "apiKey", label: "API key", set: true }]);
    expect(shown[1]!.vars).toBeUndefined();
    expect(authHelp(m)).toContain("API Key: Use an API key to authenticate (enter the key in Settings)");
  });

  it("claude-agent-acp 0.101.0: terminal methods show the backend's command with their arguments", () => {
    const m = withTerminalCommands(withKnownMethods(readAuthMethods(claude101), claude101.agentInfo.name), [
      "/home/u/.npm-global/bin/claude-agent-acp",
    ]);
    expect(m.map((x) => `${x.id}:${x.type}:${x.command ?? ""}`)).toEqual([
      "claude-ai-login:terminal:claude-agent-acp --cli auth login --claudeai",
      "console-login:terminal:claude-agent-acp --cli auth login --console",
      "anthropic-api-key:env_var:",
    ]);
    // terminal logins are not something the console can check by opening a session
    expect(shouldProbe(m, {})).toBe(false);
    expect(authHelp(m)).toContain(
      "Anthropic Console: Use Anthropic Console (API usage billing) (`claude-agent-acp --cli auth login --console`)",
    );
    // a method with its own command line keeps it
    const own = withTerminalCommands(
      readAuthMethods({
        authMethods: [
          {
            id: "t",
            name: "T",
            type: "terminal",
            args: ["x"],
            _meta: { "terminal-auth": { command: "/bin/a", args: ["y"] } },
          },
        ],
      }),
      ["b"],
    );
    expect(own[0]!.command).toBe("a y");
  });

  it("Gemini's api-key method stays an env_var method (GEMINI_API_KEY), not a key field", () => {
    const m = withKnownMethods(
      readAuthMethods({
        authMethods: [{ id: "gemini-api-key", name: "Gemini API key", _meta: { "api-key": { provider: "google" } } }],
      }),
      "gemini-cli",
    );
    expect(m[0]).not.toHaveProperty("apiKey");
    expect(m[0]).toMatchObject({ type: "env_var", vars: [{ name: "GEMINI_API_KEY" }] });
  });
});

describe("ACP auth methods", () => {
  it("reads env_var methods with their vars from the raw initialize result, skipping malformed ones", () => {
    const m = readAuthMethods({
      authMethods: [
        ...codex.authMethods,
        { id: 3 },
        "nope",
        {
          id: "t",
          name: "T",
          type: "terminal",
          _meta: { "terminal-auth": { command: "/usr/bin/agent", args: ["login"] } },
        },
      ],
    });
    expect(m.map((x) => `${x.id}:${x.type}:${x.vars.map((v) => v.name).join(",")}`)).toEqual([
      "chatgpt:agent:",
      "codex-api-key:env_var:CODEX_API_KEY",
      "openai-api-key:env_var:OPENAI_API_KEY",
      "t:terminal:",
    ]);
    expect(m[3]!.command).toBe("agent login");
    expect(readAuthMethods({})).toEqual([]);
  });

  it("knows Gemini CLI's API key method and Claude Code's ANTHROPIC_API_KEY", () => {
    const gemini = withKnownMethods(
      readAuthMethods({
        authMethods: [
          { id: "oauth-personal", name: "Log in with Google" },
          { id: "gemini-api-key", name: "Gemini API key", _meta: { "api-key": { provider: "google" } } },
        ],
      }),
      "gemini-cli",
    );
    expect(gemini[1]).toMatchObject({ type: "env_var", vars: [{ name: "GEMINI_API_KEY" }], origin: "agent" });
    const claude = withKnownMethods(
      readAuthMethods({ authMethods: [{ id: "claude-login", name: "Log in with Claude Code" }] }),
      "@zed-industries/claude-code-acp",
    );
    expect(claude.map((x) => `${x.id}:${x.origin}`)).toEqual(["claude-login:agent", "anthropic-api-key:console"]);
    // today's Claude adapter, named by its new package, gets the same key option
    expect(withKnownMethods([], "@agentclientprotocol/claude-agent-acp").map((x) => x.id)).toEqual([
      "anthropic-api-key",
    ]);
    expect(withKnownMethods([], "other")).toEqual([]);
  });

  it("matches methods against the environment, and never shows a value", () => {
    const m = readAuthMethods(codex);
    expect(satisfiedMethod(m, {})).toBeUndefined();
    expect(shouldProbe(m, {})).toBe(true);
    expect(satisfiedMethod(m, { OPENAI_API_KEY: "sk-1" })!.id).toBe("openai-api-key");
    expect(satisfiedMethod(m, { OPENAI_API_KEY: "  " })).toBeUndefined();
    expect(shouldProbe(m, { OPENAI_API_KEY: "sk-1" })).toBe(false);
    const shown = describeAuthMethods(m, { OPENAI_API_KEY: "sk-1" });
    expect(JSON.stringify(shown)).not.toContain("sk-1");
    expect(shown[2]!.vars).toEqual([{ name: "OPENAI_API_KEY", set: true }]);
    expect(shown[0]!.vars).toBeUndefined();
    // console-known methods are not a reason to probe
    expect(shouldProbe(withKnownMethods([], "@zed-industries/claude-code-acp"), {})).toBe(false);
  });

  it("says how to log in, and merges entered values (empty removes)", () => {
    expect(authHelp(readAuthMethods(codex))).toContain(
      "Use OPENAI_API_KEY: Requires setting the `OPENAI_API_KEY` environment variable. (OPENAI_API_KEY: enter it in Settings)",
    );
    expect(mergeCredentials({ A: "1", B: "2" }, { A: "", C: "3" })).toEqual({ B: "2", C: "3" });
  });

  it("keeps an agent error's data details", () => {
    const e = RequestError.internalError({ details: "Query closed before response received" });
    expect(errorDetails(e)).toBe("Query closed before response received");
    expect(agentMessage(e)).toBe("Internal error: Query closed before response received");
    expect(errorDetails(new RequestError(-32000, "x", "plain"))).toBe("plain");
    expect(errorDetails(new RequestError(-32000, "x", { other: 1 }))).toBe('{"other":1}');
    expect(errorDetails(new Error("no data"))).toBeUndefined();
  });
});
