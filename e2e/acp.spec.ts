import type { ScriptedTurn } from "../testkit/scripted-model";
import { agentEnvOutput, expectNoConsoleSecrets } from "./fixtures/agent-env";
import { expect, test } from "./fixtures/acp";
import { AGENTS } from "../testkit/acp-stack";
import { ReviewPage } from "./pages/review-page";
import { SessionPage } from "./pages/session-page";
import { answersAfterCrash, killMidTurn, sharedFlows } from "./shared-flows";

const bash = (marker: string): ScriptedTurn => ({
  toolCalls: [{ name: "bash", arguments: { command: `echo ${marker}`, description: `Print ${marker}` } }],
});

test("an ACP agent's bash tool running env shows no console secret, nor the other agent's key", async ({
  request,
  acpStack,
}) => {
  // The Copilot agent holds its own provider key (COPILOT_PROVIDER_API_KEY): OpenCode ACP never sees it.
  const out = await agentEnvOutput(request, acpStack.url, "opencode-acp", acpStack.model);
  expectNoConsoleSecrets(out, [acpStack.token, "sk-scripted"]);
});

for (const agent of AGENTS) {
  test.describe(`ACP agent: ${agent.label} (${agent.id})`, () => {
    sharedFlows(test, {
      backendId: agent.id,
      reasoning: true,
      // the secrets check runs once for both agents, above
      skip: ["env"],
      async afterStream(sp) {
        if (agent.id !== "copilot") return;
        // Copilot reports the context itself (usage_update {used, size}): the meter shows it.
        await expect(sp.page.getByTestId("context-meter")).toBeVisible();
        await sp.page.getByTestId("usage").click();
        await expect(sp.page.getByTestId("usage-details")).toContainText("Window");
        await expect(sp.page.getByTestId("usage-details")).not.toContainText("unknown");
      },
    });

    test("a bash tool call behind a permission card: allow once, then reject", async ({ page, acpApi, acpStack }) => {
      acpStack.model.enqueue(bash("e2e-allowed"), { text: "The allowed command ran." });
      const s = await acpApi.createSession(agent.id, "acp permission");
      const sp = new SessionPage(page);
      await sp.goto(agent.id, s.id);
      await sp.prompt("run the allowed command");
      const card = page.getByTestId("permission-card");
      await expect(card).toBeVisible({ timeout: 30_000 });
      await expect(card).toContainText("echo e2e-allowed");
      await expect(sp.toolCards("bash").last()).toHaveAttribute("data-status", "awaiting-approval");
      await sp.waitStatus("waiting");
      await card.getByTestId("permission-allow-once").click();
      await expect(card).toHaveCount(0);
      const allowed = sp.toolCards("bash").first();
      await expect(allowed).toHaveAttribute("data-status", "completed");
      await expect(allowed.getByTestId("tool-output")).toContainText("e2e-allowed");
      await expect(sp.assistantText().last()).toHaveText("The allowed command ran.");
      await sp.waitStatus("idle");

      acpStack.model.enqueue(bash("e2e-rejected"), { text: "Understood, not running it." });
      await sp.prompt("run the rejected command");
      await expect(card).toBeVisible({ timeout: 30_000 });
      await expect(card).toContainText("echo e2e-rejected");
      await card.getByTestId("permission-reject").click();
      await expect(card).toHaveCount(0);
      const rejected = sp.toolCards("bash").nth(1);
      await expect(rejected).toHaveAttribute("data-status", "denied");
      await sp.waitStatus("idle");
      await expect(rejected.getByTestId("tool-output")).toHaveCount(0);
    });

    test("the session list shows the agent's sessions and searches them", async ({ page, acpApi }) => {
      const a = await acpApi.createSession(agent.id, `listed alpha ${agent.id}`);
      const b = await acpApi.createSession(agent.id, `listed beta ${agent.id}`);
      await page.goto("/");
      const section = page.locator(`[data-testid="backend-section"][data-backend-id="${agent.id}"]`);
      await expect(section.locator(`[data-testid="session-row"][data-session-id="${a.id}"]`)).toContainText(
        `listed alpha ${agent.id}`,
      );
      await expect(section.locator(`[data-testid="session-row"][data-session-id="${b.id}"]`)).toContainText(
        `listed beta ${agent.id}`,
      );
      await page.getByTestId("session-search").fill(`listed beta ${agent.id}`);
      await expect(section.locator(`[data-testid="session-row"][data-session-id="${b.id}"]`)).toBeVisible();
      await expect(section.locator(`[data-testid="session-row"][data-session-id="${a.id}"]`)).toHaveCount(0);
      await section.locator(`[data-testid="session-row"][data-session-id="${b.id}"]`).click();
      await expect(page).toHaveURL(new RegExp(`/sessions/${agent.id}/${b.id}$`));
      await expect(page.getByTestId("session-title")).toHaveText(`listed beta ${agent.id}`);
    });

    test("fork: the whole session where the agent advertises it, with lineage and the tree; never per message", async ({
      page,
      acpApi,
      acpStack,
    }) => {
      acpStack.model.enqueue({ text: "Forkable answer." });
      const s = await acpApi.createSession(agent.id, "acp fork");
      const rp = new ReviewPage(page);
      await rp.goto(agent.id, s.id);
      await rp.prompt("fork me");
      await expect(rp.assistantText().last()).toHaveText("Forkable answer.");
      await rp.waitStatus("idle");
      const user = rp.messages("user").first();
      await user.hover();
      const canFork = (await acpStack.backend(agent.id)).capabilities.fork;
      if (!canFork) {
        // Copilot does not advertise session/fork: no per-message fork, the menu says why, and the API answers 409.
        await expect(user.getByTestId("fork-message")).toHaveCount(0);
        await page.getByTestId("session-menu").click();
        await expect(page.getByTestId("action-fork")).toHaveAttribute("title", /cannot fork sessions/);
        const r = await page.request.post(`/api/backends/${agent.id}/sessions/${s.id}/fork`, {
          data: {},
          headers: { origin: acpStack.url },
        });
        expect(r.status()).toBe(409);
        return;
      }
      // ACP forks whole sessions only: the per-message fork says so instead of acting.
      await expect(user.getByTestId("fork-message")).toHaveAttribute("aria-disabled", "true");
      await expect(user.getByTestId("fork-message")).toHaveAttribute("title", /fork from a message/);
      await rp.menu("action-fork");
      const forkId = await rp.waitForOtherSession(s.id);
      await expect.poll(() => rp.transcript()).toEqual(["user: fork me", "assistant: Forkable answer."]);
      await expect(page.getByTestId("forked-from")).toBeVisible();
      // The fork goes on by itself; the source does not see it.
      acpStack.model.enqueue({ text: "Only in the fork." });
      await rp.prompt("continue in the fork");
      await expect(rp.assistantText().last()).toHaveText("Only in the fork.");
      await rp.waitStatus("idle");
      await page.getByTestId("tree-button").click();
      await expect(rp.treeNodes()).toHaveCount(2);
      await expect(page.locator(`[data-testid="tree-node"][data-session-id="${forkId}"]`)).toHaveAttribute(
        "data-relation",
        "fork",
      );
      await rp.goto(agent.id, s.id);
      await expect.poll(() => rp.transcript()).toEqual(["user: fork me", "assistant: Forkable answer."]);
    });

    test("the agent's slash commands complete in the composer", async ({ page, acpApi }) => {
      const s = await acpApi.createSession(agent.id, "acp commands");
      const sp = new SessionPage(page);
      await sp.goto(agent.id, s.id);
      // The agent announces its commands after session/new (available_commands_update).
      await expect
        .poll(async () => (await acpApi.snapshot(agent.id, s.id)).session.settings?.commands?.length ?? 0, {
          timeout: 20_000,
        })
        .toBeGreaterThan(0);
      const commands = (await acpApi.snapshot(agent.id, s.id)).session.settings!.commands!;
      const menu = page.getByTestId("command-menu");
      // Typed for real: "/" in the prompt is the agent's, not the sidebar's search shortcut.
      await sp.input.click();
      await page.keyboard.type("/");
      await expect(sp.input).toBeFocused();
      await expect(menu.getByTestId("command-option")).toHaveCount(Math.min(8, commands.length));
      // A prefix narrows the list; a click completes the command.
      const target = commands.find((c) => c.name === "review") ?? commands[0]!;
      await sp.input.fill(`/${target.name.slice(0, 3)}`);
      await menu.locator(`[data-name="${target.name}"]`).click();
      await expect(sp.input).toHaveValue(`/${target.name} `);
      await expect(menu).toHaveCount(0);
      // Enter completes the highlighted command instead of sending; Escape closes the menu.
      const first = commands.find((c) => c.name.toLowerCase().startsWith(target.name.toLowerCase()))!;
      await sp.input.fill(`/${target.name}`);
      await page.keyboard.press("Enter");
      await expect(sp.input).toHaveValue(`/${first.name} `);
      await sp.input.fill("/");
      await expect(menu).toBeVisible();
      await page.keyboard.press("Escape");
      await expect(menu).toHaveCount(0);
      await expect(sp.messages("user")).toHaveCount(0);
    });

    test("killing the agent mid-turn shows the failure and the restart, and the next prompt works", async ({
      page,
      acpApi,
      acpStack,
    }) => {
      const s = await acpApi.createSession(agent.id, "acp crash");
      const sp = await SessionPage.open(page, agent.id, s.id);
      // the turn fails, saying what happened to the process
      const pid = await killMidTurn(sp, acpStack.model, async () => {
        const before = await acpStack.backend(agent.id);
        process.kill(before.process!.pid!, "SIGKILL");
        return before.process!.pid;
      });
      // the supervisor restarts it: the session says so, and the backend is ready again
      await expect(sp.timeline.locator('[data-testid="block"][data-kind="notice"]').last()).toContainText("restarted", {
        timeout: 60_000,
      });
      await expect(sp.connection).toHaveAttribute("data-state", "connected", { timeout: 30_000 });
      const after = await acpStack.backend(agent.id);
      expect(after.process!.pid).not.toBe(pid);
      expect(after.process!.restarts).toBeGreaterThanOrEqual(1);
      await answersAfterCrash(sp, acpStack.model);
    });
  });
}

test.describe("settings", () => {
  test("lists the ACP backends with status and stderr, masks secrets, adds and removes an agent", async ({
    page,
    acpStack,
  }) => {
    await page.goto("/");
    await page.getByTestId("settings-link").click();
    await expect(page).toHaveURL(/\/settings$/);
    for (const a of AGENTS) {
      const row = page.locator(`[data-testid="backend-row"][data-backend-id="${a.id}"]`);
      await expect(row).toHaveAttribute("data-status", "ready");
      await expect(row.getByTestId("backend-env")).toContainText(
        a.id === "copilot" ? "COPILOT_PROVIDER_API_KEY=***" : "OPENCODE_CONFIG_CONTENT=***",
      );
      await expect(row.getByTestId("backend-remove")).toBeDisabled();
    }
    // secrets never reach the browser
    const html = await page.content();
    expect(html).not.toContain("sk-scripted");
    expect(html).not.toContain(acpStack.model.url);
    const copilotRow = page.locator('[data-testid="backend-row"][data-backend-id="copilot"]');
    await copilotRow.getByTestId("backend-logs-toggle").click();
    await expect(copilotRow.getByTestId("backend-logs")).toContainText("started pid");

    // presets are detected (both binaries are in node_modules/.bin)
    await expect(page.getByTestId("preset-copilot")).toHaveAttribute("data-available", "true");
    await expect(page.getByTestId("preset-opencode-acp")).toHaveAttribute("data-available", "true");
    await page.getByTestId("preset-opencode-acp").click();
    await expect(page.getByTestId("backend-command")).toHaveValue("opencode acp");
    await page.getByTestId("backend-label").fill("Extra OpenCode");
    const env = Object.entries(acpStack.agents["opencode-acp"].env)
      .map(([k, v]) => `${k}=${v}`)
      .join("\n");
    await page.getByTestId("backend-env-input").fill(env);
    await page.getByTestId("add-backend-submit").click();
    const extra = page.locator('[data-testid="backend-row"][data-backend-id="extra-opencode"]');
    await expect(extra).toHaveAttribute("data-status", "ready", { timeout: 30_000 });
    await expect(extra.getByTestId("backend-env")).toContainText("OPENCODE_CONFIG_CONTENT=***");
    expect(await page.content()).not.toContain("sk-fake");
    // it can be restarted (a new process), shows in the sidebar too, then goes away when removed
    const pid = Number((await extra.getByTestId("backend-process").textContent())!.match(/pid (\d+)/)![1]);
    await extra.getByTestId("backend-restart").click();
    await expect(extra.getByTestId("backend-process")).toContainText("1 restart", { timeout: 30_000 });
    await expect(extra).toHaveAttribute("data-status", "ready", { timeout: 30_000 });
    await expect(extra.getByTestId("backend-process")).not.toContainText(`pid ${pid} `);
    await expect(page.locator('[data-testid="backend-section"][data-backend-id="extra-opencode"]')).toBeVisible();
    await extra.getByTestId("backend-remove").click();
    await extra.getByTestId("backend-remove-confirm").click();
    await expect(extra).toHaveCount(0);
    await expect(page.locator('[data-testid="backend-section"][data-backend-id="extra-opencode"]')).toHaveCount(0);
  });
});
