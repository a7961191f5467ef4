import "server-only";
import type { StdioAdapterOptions } from "../shared/kind";

export interface CopilotProvider {
  type: "openai" | "azure" | "anthropic";
  baseUrl: string;
  apiKey?: string;
  wireApi?: "completions" | "responses";
}

/**
 * The stdio options (`command` gets `--headless --stdio --no-auto-update` where it lacks them; `cwd` is
 * the CLI's working directory and the default directory of new sessions); no store: the CLI keeps its
 * sessions itself.
 */
export interface CopilotAdapterOptions extends Omit<StdioAdapterOptions, "store"> {
  /** Bring your own key: sent with every `session.create` / `session.resume`, never to the browser. */
  provider?: CopilotProvider;
  /** The model of new sessions (required by Copilot with a provider; default gpt-4.1 then). */
  model?: string;
  restart?: { initialMs?: number; maxMs?: number };
  /** How long a request waits for a (re)starting CLI before answering 503 (default 45 s). */
  readyTimeoutMs?: number;
  /** How long the CLI may ignore `session.abort` before the turn is ended here (default 10 s). */
  abortGraceMs?: number;
}

/** The flags the console's protocol needs; added to the command line where it lacks them. */
export const HEADLESS_FLAGS = ["--headless", "--stdio", "--no-auto-update"] as const;

/** The command line with the headless flags added. */
export function headlessCommand(command: readonly string[]): string[] {
  const out = [...command];
  for (const f of HEADLESS_FLAGS) if (!out.includes(f)) out.push(f);
  return out;
}

/** The model of new sessions: the configured one; with a provider and none configured, gpt-4.1. */
export function configuredModel(opts: CopilotAdapterOptions): string | undefined {
  return opts.model ?? (opts.provider ? "gpt-4.1" : undefined);
}

/** The parameters of `session.create` and `session.resume`: the model, the provider, what the console handles. */
export function sessionParams(opts: CopilotAdapterOptions, cwd?: string) {
  const model = configuredModel(opts);
  const p = opts.provider;
  return {
    ...(model ? { model } : {}),
    ...(p
      ? {
          provider: {
            type: p.type,
            baseUrl: p.baseUrl,
            ...(p.apiKey ? { apiKey: p.apiKey } : {}),
            ...(p.wireApi ? { wireApi: p.wireApi } : {}),
          },
        }
      : {}),
    streaming: true,
    requestPermission: true,
    requestUserInput: true,
    requestElicitation: true,
    // Plan mode's exit_plan_mode tool hands its plan back through `exitPlanMode.request`; without
    // this the CLI (1.0.102) leaves the callback off and the plan never reaches the console.
    requestExitPlanMode: true,
    // rewind points restore files only when the CLI tracks them
    enableFileChangeTracking: true,
    ...(cwd ? { workingDirectory: cwd } : {}),
    clientName: "switchboard",
  };
}
