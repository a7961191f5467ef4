/**
 * ApiBackend's handling of what OpenCode's `/api` answers, against a fake fetch that returns bodies
 * recorded from the pinned `opencode serve` (1.18.33).
 */
import { describe, expect, it } from "vitest";
import { isApiError } from "../../errors";
import { ApiBackend } from "./api-backend";
import { apiPrompt } from "./api-prompt";
import { toApiPermission, type ApiPermission } from "./normalize-api";

const S = "ses_de8ddf1dcffe3LDbLapIcx91Z9";

/** A fetch that answers every request with `status` and `body`, and records what was asked. */
function answering(status: number, body: unknown) {
  const asked: { method: string; path: string }[] = [];
  const fetchImpl = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const req = input instanceof Request ? input : new Request(input, init);
    asked.push({ method: req.method, path: new URL(req.url).pathname + new URL(req.url).search });
    return new Response(body === undefined ? null : JSON.stringify(body), {
      status,
      headers: body === undefined ? {} : { "content-type": "application/json" },
    });
  }) as typeof fetch;
  return { asked, backend: new ApiBackend("http://opencode.test", {}, fetchImpl, "Local", "local") };
}

async function failure(p: Promise<unknown>) {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error("expected a failure");
}

describe("ApiBackend compact", () => {
  it("a server whose /api cannot compact (1.18: 503 ServiceUnavailableError) is told apart: 409 with the capability, and remembered", async () => {
    // Recorded: POST /api/session/:id/compact on opencode 1.18.33.
    const { backend, asked } = answering(503, {
      _tag: "ServiceUnavailableError",
      message: "Session compact is not available yet",
      service: "session.compact",
    });
    const err = await failure(backend.compact(S));
    expect(asked).toEqual([{ method: "POST", path: `/api/session/${S}/compact` }]);
    expect(isApiError(err) && err.code).toBe("conflict");
    expect(isApiError(err) && err.details).toEqual({ capability: "compact" });
    expect((err as Error).message).toBe(
      "Local cannot compact a conversation: this OpenCode server's /api does not compact yet (OpenCode answered 503: Session compact is not available yet)",
    );
    expect(backend.compactUnavailable).toBe(true);
  });

  it("other failures keep their meaning and prove nothing about the capability", async () => {
    const missing = answering(404, { _tag: "SessionNotFoundError", sessionID: S, message: `Session not found: ${S}` });
    const gone = await failure(missing.backend.compact(S));
    expect(isApiError(gone) && gone.code).toBe("not_found");
    expect(missing.backend.compactUnavailable).toBe(false);
    // A 503 that is not the server's "not implemented" answer (a proxy, a restart) is an upstream failure.
    const busy = answering(503, { message: "upstream unreachable" });
    const err = await failure(busy.backend.compact(S));
    expect(isApiError(err) && err.code).toBe("upstream_failed");
    expect(busy.backend.compactUnavailable).toBe(false);
  });

  it("a server that compacts answers 204", async () => {
    const { backend } = answering(204, undefined);
    await backend.compact(S);
    expect(backend.compactUnavailable).toBe(false);
  });
});

describe("ApiBackend saved permission rules", () => {
  it("reads the rules 'always' saved, and they are the ones the permission card named", async () => {
    // Recorded on 1.18.33: a bash request (config `"echo ask*": "ask"`), answered "always", then
    // GET /api/permission/saved. The card's "also allows …" line is the request's `save`.
    const request: ApiPermission = {
      id: "per_217288276001eU1Bqt1ZDnuRq3",
      sessionID: "ses_de8d79f1cffef6DaZDyg6QeLz9",
      action: "bash",
      resources: ["echo ask-one"],
      save: ["echo ask-one"],
      source: { type: "tool", messageID: "msg_2172881ff00135e1lvZXfZP85j", callID: "call_fake_1_0" },
    };
    const { backend, asked } = answering(200, {
      data: [
        {
          id: "psv_217288290002ukG9CxaMB9d4nR",
          projectID: "daf5bafe7666feab51f2ecad11ee4f0ba7f88e66",
          action: "bash",
          resource: "echo ask-one",
        },
      ],
    });
    const card = toApiPermission(request).permission!;
    expect(card.always).toEqual(["echo ask-one"]);
    expect(card.options.find((o) => o.kind === "allow_always")?.label).toBe("Always allow (saved rule)");
    expect(await backend.readSavedRules()).toBe(true);
    expect(backend.saved).toEqual(card.always!.map((r) => `${card.action}: ${r}`));
    expect(asked).toEqual([{ method: "GET", path: "/api/permission/saved" }]);
  });
});

describe("apiPrompt", () => {
  const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");
  it("a text file goes as named text after what was typed; an image stays a file", () => {
    const png = "data:image/png;base64,iVBORw0KGgo=";
    const out = apiPrompt([
      { type: "text", text: "summarize the notes" },
      {
        type: "file",
        mime: "text/markdown",
        url: `data:text/markdown;base64,${b64("# Notes\ncardamom ✓\n")}`,
        filename: "notes.md",
      },
      { type: "file", mime: "image/png", url: png, filename: "shot.png" },
    ]);
    expect(out.text).toBe('summarize the notes\n\n<file name="notes.md">\n# Notes\ncardamom ✓\n\n</file>');
    expect(out.files).toEqual([{ uri: png, name: "shot.png" }]);
  });
  it("a file URI or a binary file goes as a file; a name cannot break out of its quotes", () => {
    const out = apiPrompt([
      { type: "file", mime: "application/pdf", url: "data:application/pdf;base64,JVBERi0=" },
      { type: "file", mime: "text/plain", url: `data:text/plain;base64,${b64("x")}`, filename: 'a"b\nc.txt' },
    ]);
    expect(out.files).toEqual([{ uri: "data:application/pdf;base64,JVBERi0=" }]);
    expect(out.text).toBe('<file name="abc.txt">\nx\n</file>');
  });
});
