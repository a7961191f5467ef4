/**
 * The vendors' own ACP agents at their pinned versions — Codex (codex-acp), Claude Code
 * (claude-agent-acp) and Gemini CLI (`gemini --acp`) — each against the scripted model
 * speaking its provider's API (testkit/acp-vendor-env.ts). Per agent, in order: it starts without
 * credentials and shows as auth-required with its methods; a key entered in Settings makes it ready
 * and never reaches the browser; a prompt streams a reply; a shell tool call shows with its
 * permission card; Stop ends a slow turn; an error from the model reaches the user with its detail.
 */
import { expect, test } from "./fixtures/acp-vendors";
import { AGENTS_UNDER_TEST } from "../testkit/acp-vendor-stack";
import { BackendAuthPage } from "./pages/backend-auth";
import { messageText } from "../testkit/scripted-model";
import { SessionPage } from "./pages/session-page";

const KEY = "sk-vendor-e2e-7c1f9a";

// A failing test keeps the agents' stderr (what they said about it) with its report.
test.afterEach(async ({ request, vendorStack }, testInfo) => {
  if (testInfo.status === testInfo.expectedStatus) return;
  for (const a of AGENTS_UNDER_TEST) {
    const r = await request.get(`${vendorStack.url}/api/backends/${a.id}/logs`);
    const { lines } = (await r.json()) as { lines: string[] };
    await testInfo.attach(`${a.id}-stderr.txt`, { body: lines.join("\n"), contentType: "text/plain" });
  }
});

for (const agent of AGENTS_UNDER_TEST) {
  test.describe(`ACP vendor agent: ${agent.label}`, () => {
    test.describe.configure({ mode: "serial" });

    test("without credentials it is auth-required with its methods; a key entered in Settings makes it ready and stays on the server", async ({
      page,
      // biome-ignore lint/correctness/noUnusedFunctionParameters: asked for its set-up: it resets the scripted model before the test
      vendorApi,
      vendorStack,
    }) => {
      const settings = new BackendAuthPage(page);
      await settings.goto();
      // its preset is detected (the binary is in node_modules/.bin)
      await expect(page.getByTestId(`preset-${agent.id}`)).toHaveAttribute("data-available", "true");
      await expect(settings.row(agent.id)).toHaveAttribute("data-status", "auth-required", { timeout: 60_000 });
      // the ACP version agreed: v2 with the agents that offer it, v1 with Gemini CLI
      await expect(settings.row(agent.id).getByTestId("backend-protocol")).toHaveText(agent.protocol);
      await expect(settings.row(agent.id).getByTestId("backend-error")).toContainText(agent.named);
      await expect(settings.method(agent.id, agent.method)).toBeVisible();
      expect(await settings.methods(agent.id).count()).toBeGreaterThanOrEqual(agent.minMethods);
      if (agent.id === "claude-code") {
        // its terminal login, shown as the command to run (the console declares terminal auth)
        await expect(settings.method(agent.id, "claude-login")).toContainText("claude-agent-acp --cli");
      }
      // known at start (Codex and Gemini probed with a session; Claude Code reports its own login),
      // not at the first New session: New is not offered
      await expect(
        page.locator(`[data-testid="backend-section"][data-backend-id="${agent.id}"]`).getByTestId("new-session"),
      ).toBeDisabled();
      // New session says why it cannot, with the ways to log in
      const refused = await page.request.post(`/api/backends/${agent.id}/sessions`, {
        data: {},
        headers: { origin: vendorStack.url },
      });
      expect(refused.status()).toBe(503);
      expect(await refused.text()).toContain(agent.named);

      await settings.enter(agent.id, agent.method, agent.variable, KEY);
      await expect(settings.row(agent.id)).toHaveAttribute("data-status", "ready", { timeout: 60_000 });
      expect(await page.content()).not.toContain(KEY);
      const listed = await page.request.get("/api/backends");
      expect(await listed.text()).not.toContain(KEY);
      expect(await listed.text()).toContain(agent.variable);
    });

    test("a prompt streams a reply, a shell tool call shows with its permission card", async ({
      page,
      vendorApi,
      vendorStack,
    }) => {
      const reply = `Streamed by ${agent.label}. ${Array.from({ length: 12 }, (_, i) => `word${i}`).join(" ")} — done.`;
      vendorStack.model.enqueue({ text: reply, chunks: 12, delayMs: 300 });
      const s = await vendorApi.createSession(agent.id, `${agent.id} stream`);
      const sp = new SessionPage(page);
      await sp.goto(agent.id, s.id);
      await sp.prompt("answer in pieces");
      await expect
        .poll(
          async () => {
            const t = (
              (await sp
                .assistantText()
                .last()
                .textContent()
                .catch(() => "")) ?? ""
            ).trim();
            return t.length > 0 && t.length < reply.length && reply.startsWith(t.slice(0, 10));
          },
          { timeout: 60_000, intervals: [50] },
        )
        .toBe(true);
      await expect(sp.assistantText().last()).toHaveText(reply);
      await sp.waitStatus("idle");

      vendorStack.model.enqueue(
        { toolCalls: [agent.shell("mkdir -p out && echo vendor-e2e-allowed", "Print a marker")] },
        { text: "The command ran." },
      );
      await sp.prompt("run the marker command");
      const card = page.getByTestId("permission-card");
      await expect(card).toBeVisible({ timeout: 60_000 });
      await expect(card).toContainText("echo vendor-e2e-allowed");
      await card.getByTestId("permission-allow-once").click();
      await expect(card).toHaveCount(0);
      const tool = sp.toolCards().last();
      await expect(tool).toHaveAttribute("data-status", "completed", { timeout: 30_000 });
      // the command really ran: its output went back to the model (and shows where the agent reports it)
      await expect
        .poll(() =>
          vendorStack.model.requests.some((r) =>
            r.messages.some((m) => m.role === "tool" && messageText(m).includes("vendor-e2e-allowed")),
          ),
        )
        .toBe(true);
      if (agent.reportsShellOutput) await expect(tool.getByTestId("tool-output")).toContainText("vendor-e2e-allowed");
      await expect(sp.assistantText().last()).toHaveText("The command ran.", { timeout: 30_000 });
      await sp.waitStatus("idle");
    });

    test("Stop ends a slow turn; a model error reaches the user with its detail", async ({
      page,
      vendorApi,
      vendorStack,
    }) => {
      vendorStack.model.enqueue({
        text: Array.from({ length: 60 }, (_, i) => `tick${i} `).join(""),
        chunks: 60,
        delayMs: 250,
      });
      const s = await vendorApi.createSession(agent.id, `${agent.id} stop`);
      const sp = new SessionPage(page);
      await sp.goto(agent.id, s.id);
      await sp.prompt("go slowly");
      await expect(sp.assistantText().last()).toContainText("tick2", { timeout: 60_000 });
      await sp.stop.click();
      await sp.waitStatus("idle", 20_000);
      await expect(sp.timeline.getByTestId("message-stopped")).toBeVisible();
      expect((await sp.assistantText().last().textContent()) ?? "").not.toContain("tick59");

      vendorStack.model.enqueue(
        ...Array.from({ length: 6 }, () => ({
          error: { status: 400, message: "scripted-detail: the context is too long", type: "invalid_request_error" },
        })),
      );
      await sp.prompt("this one fails");
      // codex-acp 2.x ends the turn normally with the provider's error body as the reply's text
      await expect(
        agent.modelErrorAsReply ? sp.assistantText().last() : sp.timeline.getByTestId("message-error").last(),
      ).toContainText("scripted-detail: the context is too long", { timeout: 60_000 });
      await sp.waitStatus("idle");
    });
  });
}
