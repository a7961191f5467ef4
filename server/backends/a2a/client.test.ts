import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { plainAgent } from "../../../testkit/a2a-plain-agent";
import { startA2aServer, type A2aServer } from "../../../testkit/a2a-server";
import { isApiError } from "../../errors";
import { previewAgent } from "./client";

describe("previewAgent (POST /api/a2a/card)", () => {
  let server: A2aServer;
  const token = "preview-token-123";

  beforeAll(async () => {
    // The card is read without a model: the plain agent's model URL is never called here.
    server = await startA2aServer({
      agent: plainAgent({ modelUrl: "http://127.0.0.1:9/v1", name: "Preview agent" }),
      token,
    });
  });
  afterAll(async () => {
    await server.stop();
  });

  it("reads the card and says whether the token is accepted, refused or needed — never echoing it", async () => {
    const ok = await previewAgent(server.url, token);
    expect(ok.token).toBe("accepted");
    expect(ok.card.name).toBe("Preview agent");
    expect(ok.card.streaming).toBe(true);
    expect(ok.card.profile).toBeUndefined();
    expect(JSON.stringify(ok)).not.toContain(token);
    expect((await previewAgent(server.url, "wrong")).token).toBe("refused");
    expect((await previewAgent(server.url, undefined)).token).toBe("required");
    // the card's own URL works too
    expect((await previewAgent(`${server.url}/.well-known/agent-card.json`, token)).card.name).toBe("Preview agent");
  });

  it("an unreachable agent is an upstream error that says so", async () => {
    await expect(previewAgent("http://127.0.0.1:9/", token)).rejects.toSatisfy(
      (e: unknown) => isApiError(e) && e.status === 502 && /Could not reach the agent/.test(e.message),
    );
  });
});
