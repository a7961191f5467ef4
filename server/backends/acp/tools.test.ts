import { describe, expect, it } from "vitest";
import { mergeTool } from "./tools";

/**
 * A shell command as codex-acp 2.6.0 reports it to a client without terminals (its ToolCallRenderer
 * for a client that is not AIR, dist/index.js): the start names a terminal in `content`, the output
 * comes in `_meta.terminal_output_delta` chunks and the exit in `_meta.terminal_exit`.
 */
describe("codex-acp 2.x terminal output in _meta", () => {
  it("appends the output chunks and takes the exit code", () => {
    const id = "call_1";
    let b = mergeTool(
      undefined,
      {
        sessionUpdate: "tool_call",
        toolCallId: id,
        kind: "execute",
        status: "in_progress",
        title: "mkdir -p out && echo marker",
        rawInput: { command: "/bin/bash -lc 'mkdir -p out && echo marker'", cwd: "/w" },
        content: [{ type: "terminal", terminalId: id }],
        _meta: { terminal_info: { cwd: "/w", terminal_id: id } },
      },
      "m1",
      1,
    );
    expect(b.output).toBeUndefined();
    b = mergeTool(b, { toolCallId: id, _meta: { terminal_output_delta: { data: "mar", terminal_id: id } } }, "m1", 2);
    b = mergeTool(
      b,
      {
        toolCallId: id,
        status: "completed",
        _meta: {
          terminal_output_delta: { data: "ker\n", terminal_id: id },
          terminal_exit: { exit_code: 0, signal: null, terminal_id: id },
        },
      },
      "m1",
      3,
    );
    expect(b).toMatchObject({ status: "completed", output: "marker\n", exitCode: 0, tool: "bash" });
  });

  it("a failed command keeps its output as the error, with its exit code", () => {
    const b = mergeTool(
      undefined,
      {
        toolCallId: "c2",
        kind: "execute",
        status: "failed",
        title: "false",
        _meta: {
          terminal_output_delta: { data: "boom", terminal_id: "c2" },
          terminal_exit: { exit_code: 1, signal: null, terminal_id: "c2" },
        },
      },
      "m1",
      1,
    );
    expect(b).toMatchObject({ status: "error", error: "boom", exitCode: 1 });
  });
});
