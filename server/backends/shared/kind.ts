import "server-only";
import type { z } from "zod";
import type { BackendDefinition, BackendKindInfo, BackendPreset } from "@/lib/api";
import { StdioBackendConfig } from "@/lib/api";
import type { BackendKind } from "@/lib/model";
import { resolveWorkspaceDir } from "../../auth/workspace";
import { ApiError } from "../../errors";
import { passThrough } from "../../processes/agent-env";
import { locateCommand, packageVersionOf } from "../../processes/resolve-command";
import type { LiveStore } from "../../store/store";
import type { BackendAdapter, EventSink } from "../types";

/** The `config` of a backend definition of kind `K` (lib/api.ts `BackendDefinition`). */
export type KindConfig<K extends BackendKind> = ConfigOf<BackendDefinition, K>;
type ConfigOf<D, K> = D extends { kind: infer DK; config: infer C } ? (K extends DK ? C : never) : never;

/** What every adapter is created with, besides its own config. */
export interface AdapterContext {
  id: string;
  label: string;
  /** Where the definition came from: the operator's environment or a browser (stored). */
  source: "env" | "store";
  /** The console's workspace (the default directory of sessions). */
  workspace: string;
  /** The workspace roots: session directories (a worktree beside its repository) may lie in any. */
  workspaceRoots?: readonly string[];
  store: LiveStore;
  sink: EventSink;
}

/** A ready-made backend of a kind (before detection). */
export type PresetTemplate = Omit<BackendPreset, "available" | "path" | "version" | "bundled"> & {
  /** Older command lines for the same agent (a renamed binary), tried in order when `command`'s is not installed. */
  alternatives?: readonly string[][];
};

/** The form the settings page shows to add a backend of a kind. */
export type KindForm = BackendKindInfo["form"];

/** One kind as its own folder declares it (see `defineKind`). */
export interface KindSpec<K extends BackendKind> {
  kind: K;
  /** What the settings page calls it ("ACP agent"). */
  title: string;
  /** How the settings page adds one: a command line (stdio agents), a URL, or not at all. */
  form: KindForm;
  /** The zod schema of its `config` (from lib/api.ts, shared with the browser). */
  config: z.ZodType<KindConfig<K>>;
  /**
   * Config keys that name a directory the backend runs in. For a definition sent by a browser
   * they are realpath'd and must lie inside the workspace roots (403 outside, 400 missing); an
   * empty value means "the default" (the workspace) and is dropped.
   */
  directories: readonly (keyof KindConfig<K> & string)[];
  create(config: KindConfig<K>, ctx: AdapterContext): BackendAdapter;
  /** Ready-made backends offered on the settings page. */
  presets?: readonly PresetTemplate[];
  /** Where a preset's binary is, or undefined when it is not installed (default: its command on PATH or in node_modules/.bin). */
  detect?(preset: PresetTemplate): string | undefined;
}

/** A kind table entry with its types erased: configs are validated by the entry's own schema. */
export interface KindEntry {
  readonly kind: BackendKind;
  readonly title: string;
  readonly form: KindForm;
  /** Validates `config` (400 when it does not fit) and creates the adapter. */
  create(config: unknown, ctx: AdapterContext): BackendAdapter;
  /** The definition with its directories resolved and confined to `roots`. */
  confine(def: BackendDefinition, roots: readonly string[]): Promise<BackendDefinition>;
  /** The kind's presets, each marked available when detected. */
  presets(): BackendPreset[];
}

/**
 * A stdio backend's own variables: the values of its `passEnv` names in the console's environment,
 * then its `env` over them (server/processes/agent-env.ts adds the basics when it spawns).
 */
export function ownEnv(config: { env?: Record<string, string> | undefined; passEnv?: readonly string[] | undefined }): {
  env?: Record<string, string>;
} {
  const env = { ...passThrough(config.passEnv), ...config.env };
  return Object.keys(env).length ? { env } : {};
}

/** Turns a kind's own declaration into its kind table entry. */
export function defineKind<K extends BackendKind>(spec: KindSpec<K>): KindEntry {
  const parse = (config: unknown): KindConfig<K> => {
    const r = spec.config.safeParse(config);
    if (!r.success) throw ApiError.badRequest(`Invalid ${spec.kind} backend config`, r.error.issues);
    return r.data;
  };
  return {
    kind: spec.kind,
    title: spec.title,
    form: spec.form,
    create: (config, ctx) => spec.create(parse(config), ctx),
    async confine(def, roots) {
      const config: Record<string, unknown> = { ...(def.config as Record<string, unknown>) };
      for (const key of spec.directories) {
        const dir = config[key];
        if (typeof dir !== "string" || dir.trim() === "") delete config[key];
        else config[key] = await resolveWorkspaceDir(dir, roots);
      }
      return { ...def, config } as BackendDefinition;
    },
    presets: () =>
      (spec.presets ?? []).map((p) => {
        if (spec.detect) {
          const found = spec.detect(p);
          const { alternatives: _, ...rest } = p;
          return { ...rest, available: found !== undefined, ...(found ? { path: found } : {}) };
        }
        const { alternatives = [], ...preset } = p;
        // What the user installed (on PATH), the current name before an older one; else the console's bundled copy.
        let command = preset.command;
        let found = command[0] ? locateCommand(command[0]) : undefined;
        for (const alt of alternatives) {
          if (found && !found.bundled) break;
          const other = alt[0] ? locateCommand(alt[0]) : undefined;
          if (other && (!found || !other.bundled)) {
            command = alt;
            found = other;
          }
        }
        if (!found) return { ...preset, available: false };
        const version = packageVersionOf(found.path);
        return {
          ...preset,
          command: [...command],
          available: true,
          path: found.path,
          ...(version ? { version } : {}),
          ...(found.bundled ? { bundled: true } : {}),
        };
      }),
  };
}

/* ------------------------------------------------------------------ stdio kinds */

/** The kinds that run a command line over stdio (their config is `StdioBackendConfig` or an extension of it). */
export type StdioKind = "acp" | "opal" | "zot" | "copilot";

/** What every stdio adapter is created with: the context and the config's command, env and directory. */
export interface StdioAdapterOptions {
  id: string;
  label: string;
  /** `[command, ...args]` of the agent. */
  command: string[];
  /** Extra environment for the agent (secrets welcome: never sent to the browser, shown masked). */
  env?: Record<string, string>;
  /** The agent's working directory and the default directory of new sessions. */
  cwd?: string;
  /** The console's workspace root: session directories stay inside it (or inside `cwd`). */
  workspace: string;
  /** And the workspace roots (docs/security.md, "Directories"). */
  workspaceRoots?: readonly string[];
  store: LiveStore;
  source?: "env" | "store";
}

/** A stdio kind's config and context as its adapter takes them (`ownEnv` for the environment). */
export function stdioOptions(config: KindConfig<StdioKind>, ctx: AdapterContext): StdioAdapterOptions {
  return {
    id: ctx.id,
    label: ctx.label,
    command: config.command,
    ...ownEnv(config),
    ...(config.cwd ? { cwd: config.cwd } : {}),
    workspace: ctx.workspace,
    ...(ctx.workspaceRoots ? { workspaceRoots: ctx.workspaceRoots } : {}),
    store: ctx.store,
    source: ctx.source,
  };
}

/**
 * `defineKind` for a stdio agent: added from a command line, its `cwd` confined to the workspace,
 * created from `stdioOptions` (the kind adds what its own config has more, e.g. Copilot's provider).
 */
export function defineStdioKind<K extends StdioKind>(
  spec: Omit<KindSpec<K>, "form" | "directories" | "create" | "config"> & {
    /** The config's schema; a kind that takes a plain command line (acp, opal, zot) leaves it out. */
    config?: KindSpec<K>["config"];
    create(options: StdioAdapterOptions, sink: EventSink, config: KindConfig<K>): BackendAdapter;
  },
): KindEntry {
  const { create, config, ...rest } = spec;
  // Every stdio kind's config has `command`, `env`, `passEnv` and `cwd`; TypeScript cannot see that
  // through the conditional `KindConfig<K>` of a generic K.
  return defineKind<K>({
    ...rest,
    config: config ?? (StdioBackendConfig as unknown as KindSpec<K>["config"]),
    form: "command",
    directories: ["cwd"] as unknown as KindSpec<K>["directories"],
    create: (config, ctx) => create(stdioOptions(config as KindConfig<StdioKind>, ctx), ctx.sink, config),
  });
}
