/**
 * ACP v2 results read as their v1 counterparts, so the rest of the adapter (auth.ts, settings.ts,
 * the capabilities) stays one code path. Shapes from `@agentclientprotocol/sdk` 2.4.0
 * (`dist/v2/unstable/schema/types.gen.d.ts`), checked against the initialize results of codex-acp
 * 2.6.0 and claude-agent-acp 0.101.0 (fixtures/*-acp-v2.jsonl). Pure.
 */
import type { AgentCapabilities } from "@agentclientprotocol/sdk";
import { SessionUpdate } from "@agentclientprotocol/sdk/experimental/v2/unstable";
import { arr, obj, str } from "../shared/values";

/** What the handshake agreed, in v1 terms whatever the version. */
export interface AgreedInit {
  protocolVersion: number;
  agentCapabilities: AgentCapabilities;
  agentInfo?: { name?: string; title?: string | null; version?: string } | undefined;
  /** The result as sent (v2: with v1's field names), for what the SDK's schema drops (`env_var` methods' fields). */
  raw: unknown;
}

const has = (v: unknown) => v !== undefined && v !== null;

/**
 * A v2 `initialize` result. v2 declares sessions as a whole: a `capabilities.session` object means
 * the baseline `session/new`, `list`, `resume`, `close`, `prompt`, `cancel` (SDK 2.4.0 v2
 * `AgentCapabilities.session`); `delete` and `fork` are declared each. There is no `session/load`:
 * `session/resume` with `replayFrom: {type: "start"}` replays, so a v2 agent with sessions "loads".
 * Auth methods carry `methodId` (v1: `id`).
 */
export function v2Init(result: unknown): AgreedInit {
  const r = obj(result);
  const caps = obj(r.capabilities);
  const session = has(caps.session) ? obj(caps.session) : undefined;
  const prompt = obj(session?.prompt);
  const agentCapabilities: AgentCapabilities = {
    loadSession: session !== undefined,
    promptCapabilities: {
      image: has(prompt.image),
      audio: has(prompt.audio),
      embeddedContext: has(prompt.embeddedContext),
    },
    // `fork` is in the SDK's unstable v1 schema only (the adapter reads it loosely, adapter.ts canFork)
    sessionCapabilities: (session
      ? {
          list: {},
          resume: {},
          close: {},
          ...(has(session.delete) ? { delete: {} } : {}),
          ...(has(session.fork) ? { fork: {} } : {}),
        }
      : {}) as AgentCapabilities["sessionCapabilities"],
  };
  const info = obj(r.info);
  const authMethods = arr(r.authMethods).map((m) => {
    const o = obj(m);
    return o.id === undefined && str(o.methodId) ? { ...o, id: o.methodId } : o;
  });
  return {
    protocolVersion: 2,
    agentCapabilities,
    agentInfo: {
      ...(str(info.name) ? { name: str(info.name) } : {}),
      ...(str(info.title) ? { title: str(info.title) } : {}),
      ...(str(info.version) ? { version: str(info.version) } : {}),
    },
    raw: { ...r, authMethods },
  };
}

/** v2 config options name themselves `configId` (v1: `id`). */
export function v2ConfigOptions(list: unknown): unknown[] {
  return arr(list).map((o) => {
    const x = obj(o);
    return x.id === undefined && str(x.configId) ? { ...x, id: x.configId } : x;
  });
}

/** A v2 `session/new`, `session/resume`, `session/fork` or `set_config_option` result, in v1 terms. */
export function v2Setup<T extends object>(result: T): T {
  const r = obj(result);
  return (Array.isArray(r.configOptions) ? { ...r, configOptions: v2ConfigOptions(r.configOptions) } : r) as T;
}

/**
 * Whether the SDK's v2 client will drop this `session/update`'s `update` (a known kind whose payload
 * does not fit v2, e.g. v1's message chunks without `messageId`, v1's config options with `id`): it
 * logs and drops such a notification without telling the application (SDK 2.4.0, core/jsonrpc.js),
 * so the adapter checks it first with the SDK's own validated type guards (`SessionUpdate.is…`,
 * which "mirror wire validation"). Custom and unknown kinds pass (the SDK delivers them).
 */
export function v2Drops(update: unknown): boolean {
  if (!update || typeof update !== "object" || Array.isArray(update)) return true;
  const u = update as SessionUpdate;
  return !Object.values(SessionUpdate).some((guard) => guard(u));
}
