import "server-only";
import type { SessionOption } from "@/lib/model";
import type { Runtime } from "./runtime";

export const REASONING_EFFORTS = ["low", "medium", "high", "xhigh"] as const;
export const MODES = [
  { value: "interactive", name: "Interactive", description: "Asks before running tools" },
  { value: "plan", name: "Plan", description: "Plans before changing anything" },
  { value: "autopilot", name: "Autopilot", description: "Works on its own until done" },
];

/** One of a session's options, a choice among `choices`. */
function select(
  id: string,
  name: string,
  category: string,
  source: SessionOption["source"],
  value: string,
  choices: SessionOption["choices"],
): SessionOption {
  return { id, name, category, source, type: "select", value, choices };
}

/** A session's options: its model (offering the configured one too), reasoning effort and mode. */
export function sessionOptions(rt: Runtime, configured: string | undefined): SessionOption[] {
  const model = rt.settings.model ?? configured;
  const models = [...new Set([model, configured].filter((m): m is string => Boolean(m)))].map((m) => ({
    value: m,
    name: m,
  }));
  const effort = rt.settings.reasoningEffort ?? "default";
  const efforts = REASONING_EFFORTS.map((e) => ({
    value: e,
    name: e === "xhigh" ? "Extra high" : e[0]!.toUpperCase() + e.slice(1),
  }));
  return [
    ...(model ? [select("model", "Model", "model", "config", model, models)] : []),
    select("reasoningEffort", "Reasoning effort", "thought_level", "config", effort, [
      ...(effort === "default" ? [{ value: "default", name: "Default" }] : []),
      ...efforts,
    ]),
    select("mode", "Mode", "mode", "mode", rt.settings.mode, MODES),
  ];
}
