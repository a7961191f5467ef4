import { describe, expect, it } from "vitest";
import {
  activatedExtensions,
  detectProfile,
  extensionKey,
  hasExtendedCard,
  negotiatedVersion,
  parseAgentCard,
  supports,
} from "./card";

const SPEC = "https://github.com/Intelligent-Internet/opencode-a2a/blob/main/docs/extension-specifications.md#";

/** A 0.3 card (opencode-a2a 826cff1's shape) with the given extension URIs. */
const legacyCard = (uris: string[], params: Record<string, Record<string, unknown>> = {}) => ({
  name: "OpenCode A2A",
  url: "http://127.0.0.1:8000/",
  protocolVersion: "0.3.0",
  preferredTransport: "HTTP+JSON",
  additionalInterfaces: [{ transport: "JSONRPC", url: "http://127.0.0.1:8000/" }],
  version: "1",
  capabilities: { streaming: true, extensions: uris.map((uri) => ({ uri, params: params[uri] ?? {} })) },
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  skills: [],
});

/** A 1.0 card with the given extension URIs. */
const card10 = (
  uris: string[],
  params: Record<string, Record<string, unknown>> = {},
  extra: Record<string, unknown> = {},
) => ({
  name: "OpenCode A2A",
  version: "1",
  supportedInterfaces: [
    { url: "http://127.0.0.1:8000/", protocolBinding: "HTTP+JSON", protocolVersion: "1.0" },
    { url: "http://127.0.0.1:8000/", protocolBinding: "JSONRPC", protocolVersion: "1.0" },
  ],
  capabilities: { streaming: true, extensions: uris.map((uri) => ({ uri, params: params[uri] ?? {} })), ...extra },
  skills: [],
});

describe("the opencode-a2a profile from the card", () => {
  it("maps every URI form of an extension to one key", () => {
    expect(extensionKey("urn:opencode-a2a:session-query/v1")).toBe("session-query/v1");
    expect(extensionKey("urn:a2a:session-binding/v1")).toBe("session-binding/v1");
    expect(extensionKey(`${SPEC}shared-session-binding-v1`)).toBe("session-binding/v1");
    expect(extensionKey(`${SPEC}opencode-session-query-v1`)).toBe("session-query/v1");
    expect(extensionKey(`${SPEC}shared-interactive-interrupt-v1`)).toBe("interactive-interrupt/v1");
    // other people's URIs are not opencode-a2a's
    expect(
      extensionKey("https://example.com/docs/extension-specifications.md#shared-session-binding-v1"),
    ).toBeUndefined();
    expect(extensionKey("urn:example:session-query/v1")).toBeUndefined();
    expect(extensionKey("not a uri")).toBeUndefined();
  });

  it("is recognised with the old urn: URIs (a 0.3 card) and with the specification URLs (a 1.0 card)", () => {
    const old = detectProfile(
      parseAgentCard(
        legacyCard([
          "urn:opencode-a2a:session-query/v1",
          "urn:opencode-a2a:provider-discovery/v1",
          "urn:a2a:interactive-interrupt/v1",
        ]),
      ),
    );
    expect(old.kind).toBe("opencode");
    expect(supports(old, "opencode.sessions.list")).toBe(true);
    expect(supports(old, "opencode.models.list")).toBe(true);
    expect(supports(old, "a2a.interrupt.permission.reply")).toBe(true);
    const fresh = detectProfile(
      parseAgentCard(
        card10([
          `${SPEC}opencode-session-query-v1`,
          `${SPEC}opencode-provider-discovery-v1`,
          `${SPEC}shared-interactive-interrupt-v1`,
        ]),
      ),
    );
    expect(fresh.kind).toBe("opencode");
    expect(supports(fresh, "opencode.sessions.messages.list")).toBe(true);
    expect(supports(fresh, "a2a.interrupt.question.reply")).toBe(true);
    expect(supports(fresh, "opencode.permissions.list")).toBe(false);
  });

  it("is recognised by its compatibility profile id in either form, and the wire contract is the runtime truth", () => {
    for (const uri of ["urn:a2a:compatibility-profile/v1", `${SPEC}shared-compatibility-profile-v1`]) {
      const p = detectProfile(
        parseAgentCard(card10([uri], { [uri]: { profile_id: "opencode-a2a-single-tenant-coding-v1" } })),
      );
      expect(p.kind).toBe("opencode");
    }
    const wire = `${SPEC}shared-wire-contract-v1`;
    const p = detectProfile(
      parseAgentCard(
        card10([`${SPEC}opencode-session-query-v1`, wire], {
          [wire]: { all_jsonrpc_methods: ["opencode.sessions.list"] },
        }),
      ),
    );
    expect(supports(p, "opencode.sessions.list")).toBe(true);
    expect(supports(p, "opencode.sessions.messages.list")).toBe(false);
    expect(detectProfile(parseAgentCard(card10(["urn:example:thing/v1"]))).kind).toBe("generic");
  });

  it("negotiates 1.0 when the card offers it, else 0.3; says whether there is an extended card", () => {
    expect(negotiatedVersion(parseAgentCard(card10([])))).toBe("1.0");
    const legacy = parseAgentCard({ ...legacyCard([]), supportsAuthenticatedExtendedCard: true });
    expect(negotiatedVersion(legacy)).toBe("0.3");
    expect(hasExtendedCard(legacy)).toBe(true);
    expect(hasExtendedCard(parseAgentCard(card10([], {}, { extendedAgentCard: true })))).toBe(true);
    expect(hasExtendedCard(parseAgentCard(card10([])))).toBe(false);
  });

  // opencode-a2a 1.0 (docs/extension-specifications.md at 33ec51a9c29d414d95772d198699d74e144ab9e1):
  // `urn:opencode-a2a:extension:{shared|private}:<name>:v1`, session-query renamed session-management.
  const URN = "urn:opencode-a2a:extension:";
  const shared10 = ["session-binding", "model-selection", "stream-hints", "interactive-interrupt"].map(
    (n) => `${URN}shared:${n}:v1`,
  );
  const private10 = [
    "session-management",
    "provider-discovery",
    "workspace-control",
    "interrupt-recovery",
    "compatibility-profile",
    "wire-contract",
  ].map((n) => `${URN}private:${n}:v1`);

  it("reads opencode-a2a 1.0's URNs, their transition form and its extension documents' URLs", () => {
    expect(extensionKey(`${URN}shared:session-binding:v1`)).toBe("session-binding/v1");
    expect(extensionKey(`${URN}private:session-management:v1`)).toBe("session-management/v1");
    expect(extensionKey(`${URN}stream-hints:v1`)).toBe("stream-hints/v1");
    expect(
      extensionKey(
        "https://raw.githubusercontent.com/Intelligent-Internet/opencode-a2a/main/docs/extensions/private/interrupt-recovery/v1.md",
      ),
    ).toBe("interrupt-recovery/v1");
    expect(extensionKey("urn:example:extension:shared:session-binding:v1")).toBeUndefined();
    expect(extensionKey("https://example.com/docs/extensions/shared/session-binding/v1.md")).toBeUndefined();
  });

  it("is recognised from opencode-a2a 1.0's public card (shared URNs only) and its extended card", () => {
    const pub = detectProfile(parseAgentCard(card10(shared10)));
    expect(pub.kind).toBe("opencode");
    expect(supports(pub, "a2a.interrupt.permission.reply")).toBe(true);
    expect(supports(pub, "opencode.sessions.list")).toBe(false);
    const ext = detectProfile(parseAgentCard(card10([...shared10, ...private10])));
    expect(ext.kind).toBe("opencode");
    expect(ext.extensions.has("session-management/v1")).toBe(true);
    expect(supports(ext, "opencode.sessions.list")).toBe(true);
    expect(supports(ext, "opencode.sessions.messages.list")).toBe(true);
    expect(supports(ext, "opencode.models.list")).toBe(true);
    expect(supports(ext, "opencode.questions.list")).toBe(true);
  });

  it("asks to activate the extensions it uses, by the card's own URIs, in every generation", () => {
    const uris = activatedExtensions(parseAgentCard(card10([...shared10, ...private10])));
    expect(uris).toEqual([
      ...shared10,
      `${URN}private:session-management:v1`,
      `${URN}private:provider-discovery:v1`,
      `${URN}private:interrupt-recovery:v1`,
    ]);
    expect(
      activatedExtensions(parseAgentCard(legacyCard(["urn:opencode-a2a:session-query/v1", "urn:a2a:stream-hints/v1"]))),
    ).toEqual(["urn:opencode-a2a:session-query/v1", "urn:a2a:stream-hints/v1"]);
    // a generic agent is asked for nothing
    expect(activatedExtensions(parseAgentCard(card10(["urn:example:thing/v1"])))).toEqual([]);
  });

  it("refuses what is not a card, naming the problem", () => {
    expect(() => parseAgentCard({ name: "x" })).toThrow(/not an A2A agent card/);
    expect(() =>
      parseAgentCard({ name: "", supportedInterfaces: [{ url: "http://x", protocolBinding: "JSONRPC" }] }),
    ).toThrow(/name/);
  });
});
