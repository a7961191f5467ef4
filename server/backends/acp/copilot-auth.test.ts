/**
 * The real `copilot --acp` without credentials: `initialize` works, `session/new` answers
 * "Authentication required", and the backend shows as auth-required with Copilot's own instructions.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import type { Backend } from "@/lib/model";
import { COPILOT_BIN } from "../../../testkit/acp-env";
import { isApiError } from "../../errors";
import { SqliteStore } from "../../store/sqlite-store";
import { AcpAdapter } from "./adapter";

const home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "copilot-noauth-")));
afterAll(() => fs.rmSync(home, { recursive: true, force: true }));

it("shows copilot without a login as auth-required, with its instructions", async () => {
  const changes: Backend[] = [];
  const adapter = new AcpAdapter(
    {
      id: "copilot",
      label: "Copilot",
      command: [COPILOT_BIN, "--acp", "--no-auto-update"],
      // no BYOK provider and no token: GitHub auth is needed
      env: {
        HOME: home,
        COPILOT_HOME: path.join(home, ".copilot"),
        GH_TOKEN: "",
        GITHUB_TOKEN: "",
        COPILOT_GITHUB_TOKEN: "",
      },
      cwd: home,
      workspace: home,
      store: new SqliteStore(":memory:"),
    },
    {
      publish() {},
      backendChanged: (b) => changes.push(b),
      openSessions: () => [],
      reconcile() {},
      sessionState: () => undefined,
      openSession: async () => {},
    },
  );
  try {
    await adapter.start();
    await adapter.ready(60_000);
    const err = await adapter.createSession({}).catch((e: unknown) => e);
    expect(isApiError(err) && err.code).toBe("backend_down");
    expect(adapter.info()).toMatchObject({ status: "auth-required", error: expect.stringContaining("copilot login") });
    expect(changes.at(-1)!.status).toBe("auth-required");
  } finally {
    await adapter.stop();
  }
}, 90_000);
