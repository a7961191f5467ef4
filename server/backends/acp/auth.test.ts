import { describe, expect, it } from "vitest";
import {
  authHelp,
  describeAuthMethods,
  mergeCredentials,
  readAuthMethods,
  satisfiedMethod,
  shouldProbe,
  withKnownMethods,
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
