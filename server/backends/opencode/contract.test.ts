import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import path from "node:path";
import {
  apiGenerationOf,
  declaredApiEvents,
  detectContract,
  detectServer,
  docOffersApi,
  httpContractProbe,
  type ContractProbe,
} from "./contract";

const fixture = (name: string): unknown =>
  JSON.parse(readFileSync(path.join(__dirname, "fixtures", name), "utf8")) as unknown;
/** Trimmed from the pinned 1.18.33's `GET /doc`. */
const DOC_118 = fixture("api-doc-1.18.json");
/** Upstream main's generation, from anomalyco/opencode's SDK types at ac9ce832 (fixtures/README.md). */
const DOC_2 = fixture("api-doc-2.json");

const API_DOC = {
  openapi: "3.1.0",
  paths: { "/api/session": {}, "/api/event": {}, "/api/session/{sessionID}/prompt": {}, "/session": {} },
};
const V1_DOC = { openapi: "3.1.0", paths: { "/session": {}, "/global/event": {}, "/permission": {} } };

function probe(doc: unknown, health = false, v1?: string): ContractProbe & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    doc: async () => {
      calls.push("doc");
      return doc;
    },
    apiHealth: async () => {
      calls.push("health");
      return health;
    },
    v1Version: async () => {
      calls.push("v1");
      return v1;
    },
  };
}

describe("OpenCode contract detection", () => {
  it("picks /api when the server's document offers it (an OpenCode 2 server: no V1 routes)", async () => {
    expect(await detectContract("auto", probe(API_DOC))).toBe("api");
    expect(await detectContract("auto", probe(API_DOC, false, "2.0.1"))).toBe("api");
  });
  it("a 1.x server that serves both keeps V1 (complete there)", async () => {
    expect(await detectContract("auto", probe(API_DOC, false, "1.18.33"))).toBe("v1");
  });
  it("picks V1 when the document has no /api routes", async () => {
    expect(await detectContract("auto", probe(V1_DOC))).toBe("v1");
  });
  it("without a document, asks /api/health", async () => {
    expect(await detectContract("auto", probe(undefined, true))).toBe("api");
    expect(await detectContract("auto", probe(undefined, false))).toBe("v1");
  });
  it("a probe without an answer fails the detection (tried again later), it proves no contract", async () => {
    const failing: ContractProbe = {
      doc: () => Promise.reject(new Error("refused")),
      apiHealth: () => Promise.reject(new Error("refused")),
      v1Version: () => Promise.reject(new Error("refused")),
    };
    await expect(detectContract("auto", failing)).rejects.toThrow("refused");
  });
  it("the forced setting wins, without asking the server", async () => {
    const p = probe(API_DOC);
    expect(await detectContract("v1", p)).toBe("v1");
    expect(await detectContract("api", probe(V1_DOC))).toBe("api");
    expect(p.calls).toEqual([]);
  });
  it("a malformed document offers nothing", () => {
    expect(docOffersApi({ paths: "nope" })).toBe(false);
    expect(docOffersApi(null)).toBe(false);
    expect(docOffersApi({ paths: { "/api/session": {} } })).toBe(false);
  });
  it("over HTTP: a 404 /doc falls back to /api/health", async () => {
    const seen: string[] = [];
    const fake: typeof fetch = async (input) => {
      const url = String(input);
      seen.push(new URL(url).pathname);
      if (url.endsWith("/doc") || url.endsWith("/global/health")) return new Response("Not Found", { status: 404 });
      return Response.json({ healthy: true });
    };
    expect(await detectContract("auto", httpContractProbe("http://x", {}, fake))).toBe("api");
    expect(seen).toEqual(["/doc", "/api/health", "/global/health"]);
  });
  it("over HTTP: the pinned 1.18 shape (both contracts) keeps V1; the /api-only proxy shape gets /api", async () => {
    const both: typeof fetch = async (input) =>
      String(input).endsWith("/doc") ? Response.json(API_DOC) : Response.json({ healthy: true, version: "1.18.33" });
    expect(await detectContract("auto", httpContractProbe("http://x", {}, both))).toBe("v1");
    const apiOnly: typeof fetch = async (input) =>
      String(input).endsWith("/global/health") ? new Response("Not Found", { status: 404 }) : Response.json(API_DOC);
    expect(await detectContract("auto", httpContractProbe("http://x", {}, apiOnly))).toBe("api");
  });
  it("over HTTP: a JSON /doc decides", async () => {
    const fake: typeof fetch = async () => Response.json(V1_DOC);
    expect(await detectContract("auto", httpContractProbe("http://x", {}, fake))).toBe("v1");
  });
});

describe("OpenCode /api generation, from what /doc declares", () => {
  it("reads the event types /api/event answers with", () => {
    expect(declaredApiEvents(DOC_118).has("session.next.step.started")).toBe(true);
    const next = declaredApiEvents(DOC_2);
    for (const t of ["session.step.started", "session.execution.settled", "form.created", "session.prompt.promoted"])
      expect(next.has(t)).toBe(true);
    expect(next.has("session.next.step.started")).toBe(false);
  });
  it("the pinned 1.18's document is 1.18; upstream main's is 2", () => {
    expect(apiGenerationOf(DOC_118)).toBe("1.18");
    expect(apiGenerationOf(DOC_2)).toBe("2");
  });
  it("a document that does not describe its stream says nothing (the caller speaks 1.18)", () => {
    expect(apiGenerationOf(API_DOC)).toBeUndefined();
    expect(apiGenerationOf({ paths: { "/api/event": { get: { responses: { "200": {} } } } } })).toBeUndefined();
    expect(apiGenerationOf("nope")).toBeUndefined();
  });
  it("detection gives the generation with the contract, from the same document", async () => {
    expect(await detectServer("auto", probe(DOC_2))).toEqual({ contract: "api", generation: "2" });
    expect(await detectServer("auto", probe(DOC_118, false, "1.18.33"))).toEqual({ contract: "v1" });
    expect(await detectServer("api", probe(DOC_118))).toEqual({ contract: "api", generation: "1.18" });
    expect(await detectServer("api", probe(DOC_2))).toEqual({ contract: "api", generation: "2" });
    expect(await detectServer("api", probe(undefined))).toEqual({ contract: "api", generation: "1.18" });
  });
});
