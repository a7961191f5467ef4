/**
 * Extension negotiation with opencode-a2a 1.0 (docs/backends/a2a.md, "Versions and negotiation"):
 * the console names the extensions it uses in `A2A-Extensions` (through the SDK's
 * `withA2AExtensions`), and the 1.0 bridge (testkit/a2a-opencode-bridge.ts, `release: "1.0"`)
 * strips the shared metadata of every extension not named, as opencode-a2a's
 * src/opencode_a2a/extension_negotiation.py (8aa02a7) does. No OpenCode is needed: the card, the
 * interrupt listings and stored tasks are the bridge's own.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Task } from "@a2a-js/sdk";
import { ClientFactory, JsonRpcTransportFactory, RestTransportFactory } from "@a2a-js/sdk/client";
import { ServerCallContext } from "@a2a-js/sdk/server";
import { TaskState } from "../../../testkit/a2a-events";
import { opencodeBridge, uri10, type OpencodeBridge } from "../../../testkit/a2a-opencode-bridge";
import { startA2aServer, type A2aServer } from "../../../testkit/a2a-server";
import { boundedFetch } from "./bounded-fetch";
import { fetchAgentCard } from "./card";
import { A2aConnection, rpcFailure } from "./client";

const token = "negotiation-token";
const USED = [
  uri10("session-binding"),
  uri10("model-selection"),
  uri10("stream-hints"),
  uri10("interactive-interrupt"),
  uri10("session-management"),
  uri10("provider-discovery"),
  uri10("interrupt-recovery"),
];

/** A stored task carrying every kind of shared metadata opencode-a2a 1.0 emits. */
const storedTask = (id: string): Task => ({
  id,
  contextId: "ctx-negotiation",
  status: {
    state: TaskState.TASK_STATE_INPUT_REQUIRED,
    message: {
      messageId: `${id}-status`,
      contextId: "ctx-negotiation",
      taskId: id,
      role: 2,
      parts: [],
      metadata: { shared: { interrupt: { request_id: "perm-1", type: "permission", phase: "asked" } } },
      extensions: [],
      referenceTaskIds: [],
    },
    timestamp: undefined,
  },
  artifacts: [
    {
      artifactId: `${id}:stream`,
      name: "",
      description: "",
      parts: [],
      metadata: { shared: { stream: { block_type: "text", message_id: "m1", sequence: 1 } } },
      extensions: [],
    },
  ],
  history: [],
  metadata: {
    shared: { session: { id: "ses_1", title: "t" }, usage: { input_tokens: 3 }, progress: { type: "step" } },
    opencode: { directory: "/w" },
  },
});

describe("opencode-a2a 1.0: extension negotiation", { timeout: 30_000 }, () => {
  let bridge: OpencodeBridge;
  let server: A2aServer;

  beforeAll(async () => {
    // OpenCode is never called in these tests.
    bridge = opencodeBridge({ opencodeUrl: "http://127.0.0.1:9", directory: "/tmp", release: "1.0" });
    server = await startA2aServer({ agent: bridge, token });
    await bridge.tasks.save(storedTask("task-neg"), new ServerCallContext());
  });
  afterAll(async () => {
    await server.stop();
    bridge.close();
  });

  it("the console sends A2A-Extensions with the card's URIs on extension methods and core calls", async () => {
    const conn = await A2aConnection.open(server.url, token);
    expect(conn.profile.kind).toBe("opencode");
    // refused by the 1.0 bridge without its extension (interrupt-recovery)
    await expect(conn.call("opencode.permissions.list", {})).resolves.toEqual({ items: [] });
    await conn.getTask("task-neg");
    const seen = server.requests();
    const rpc = seen.filter((r) => r.call === "opencode.permissions.list");
    expect(rpc.length).toBe(1);
    expect([...rpc[0]!.extensions].sort()).toEqual([...USED].sort());
    const core = seen.filter((r) => r.call.includes("task-neg"));
    expect(core.length).toBeGreaterThan(0);
    expect([...core.at(-1)!.extensions].sort()).toEqual([...USED].sort());
  });

  it("with the extensions requested the shared metadata arrives; the console reads the interrupt and the stream hints", async () => {
    const conn = await A2aConnection.open(server.url, token);
    const frame = await conn.getTask("task-neg");
    const f = frame as {
      metadata?: { shared?: Record<string, unknown> };
      status?: { message?: { metadata?: { shared?: Record<string, unknown> } } };
      artifacts?: { metadata?: { shared?: Record<string, unknown> } }[];
    };
    expect(Object.keys(f.metadata?.shared ?? {}).sort()).toEqual(["progress", "session", "usage"]);
    expect(f.status?.message?.metadata?.shared?.interrupt).toMatchObject({ request_id: "perm-1" });
    expect(f.artifacts?.[0]?.metadata?.shared?.stream).toMatchObject({ block_type: "text" });
  });

  it("without A2A-Extensions the 1.0 bridge strips the shared metadata and refuses extension methods", async () => {
    const fetchImpl = boundedFetch({ token, version: () => "1.0" });
    const card = await fetchAgentCard(server.url, fetchImpl);
    const factory = new ClientFactory({
      transports: [new JsonRpcTransportFactory({ fetchImpl }), new RestTransportFactory({ fetchImpl })],
    });
    const client = await factory.createFromAgentCard(card);
    const t = await client.getTask({ tenant: "", id: "task-neg", historyLength: 0 });
    // only the provider-private metadata is left
    expect(t.metadata).toEqual({ opencode: { directory: "/w" } });
    expect(t.status?.message?.metadata).toBeUndefined();
    expect(t.artifacts[0]?.metadata).toBeUndefined();
    const rpc = await new JsonRpcTransportFactory({ fetchImpl }).create(server.url, card);
    const err = await (rpc as unknown as { callExtensionMethod(m: string, p: unknown): Promise<unknown> })
      .callExtensionMethod("opencode.sessions.list", { limit: 1 })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(rpcFailure(err)).toMatchObject({ code: -32008, type: "EXTENSION_SUPPORT_REQUIRED" });
  });

  it("the public card names only the four shared extensions; the extended card adds the private ones", async () => {
    const card = await fetchAgentCard(server.url, boundedFetch({}));
    expect(card.capabilities?.extensions?.map((e) => e.uri)).toEqual(USED.slice(0, 4));
    const conn = await A2aConnection.open(server.url, token);
    const uris = conn.card.capabilities?.extensions?.map((e) => e.uri) ?? [];
    expect(uris).toEqual(expect.arrayContaining([...USED, uri10("compatibility-profile"), uri10("wire-contract")]));
  });
});
