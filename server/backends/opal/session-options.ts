import "server-only";
import type { SessionOption } from "@/lib/model";
import type { Runtime } from "./runtime";

export const THINKING_LEVELS = ["off", "low", "medium", "high", "max"] as const;

/** A session's options as the console shows them: its model (when known) and Opal's thinking level. */
export function sessionOptions(rt: Runtime): SessionOption[] {
  const thinking = rt.thinking ?? "off";
  return [
    ...(rt.model
      ? [
          {
            id: "model",
            name: "Model",
            category: "model",
            source: "config" as const,
            type: "select" as const,
            value: rt.model,
            choices: [{ value: rt.model, name: rt.model }],
          },
        ]
      : []),
    {
      id: "thinking",
      name: "Thinking",
      category: "thought_level",
      source: "config",
      type: "select",
      value: thinking,
      choices: THINKING_LEVELS.map((l) => ({ value: l, name: l[0]!.toUpperCase() + l.slice(1) })),
    },
  ];
}
