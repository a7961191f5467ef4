import { describe, expect, it } from "vitest";
import { formatCommandLine, parseCommandLine, parseEnvLines } from "./command-line";

describe("command lines", () => {
  it("splits like a shell would, without a shell", () => {
    expect(parseCommandLine("copilot --acp --no-auto-update")).toEqual(["copilot", "--acp", "--no-auto-update"]);
    expect(parseCommandLine(`  agent 'a b'  "c \\"d\\"" e\\ f '' `)).toEqual(["agent", "a b", 'c "d"', "e f", ""]);
    expect(parseCommandLine("x '$HOME' *.ts")).toEqual(["x", "$HOME", "*.ts"]);
    expect(() => parseCommandLine("x 'open")).toThrow(/Unclosed single quote/);
  });

  it("formats back to a line that parses to the same arguments", () => {
    const args = ["/opt/my agent/bin", "--flag=1", "it's", ""];
    expect(parseCommandLine(formatCommandLine(args))).toEqual(args);
    expect(formatCommandLine(["opencode", "acp"])).toBe("opencode acp");
  });

  it("reads KEY=value lines", () => {
    expect(parseEnvLines("# comment\nA=1\n\n B = x=y \nEMPTY=")).toEqual({ A: "1", B: " x=y", EMPTY: "" });
    expect(() => parseEnvLines("no equals")).toThrow(/KEY=value/);
    expect(() => parseEnvLines("1X=2")).toThrow(/variable name/);
  });
});
