import fs from "node:fs";
import path from "node:path";
import { SessionPage } from "./pages/session-page";
import { ZOT_ID, expect, test } from "./fixtures/fake-zot-stack";

test("look", async ({ page, zotApi, zotStack }) => {
  fs.writeFileSync(path.join(zotStack.workspace, "app.ts"), "const a = 1;\nconsole.log(a);\n");
  zotStack.model.enqueue(
    { text: "Let me check the project first.", toolCalls: [{ name: "bash", arguments: { command: "ls -la && echo done" } }] },
    { toolCalls: [{ name: "edit", arguments: { path: "app.ts", edits: [{ oldText: "const a = 1;", newText: "const a = 2;" }] } }] },
    { toolCalls: [{ name: "read", arguments: { path: "missing.txt" } }] },
    { text: "I changed `a` to **2**. The file `missing.txt` does not exist." },
  );
  const s = await zotApi.createSession("zot look");
  const sp = new SessionPage(page);
  await sp.goto(ZOT_ID, s.id);
  await sp.prompt("Change a to 2 in app.ts");
  await expect(sp.assistantText().last()).toContainText("does not exist", { timeout: 20_000 });
  await sp.waitStatus("idle");
  await zotStack.restartConsole();
  zotStack.model.enqueue({ text: "Continuing from where we stopped." });
  await sp.goto(ZOT_ID, s.id);
  await sp.prompt("go on");
  await expect(sp.assistantText().last()).toHaveText("Continuing from where we stopped.");
  await sp.waitStatus("idle");
  for (const b of await sp.toolCards().all()) await sp.expand(b);
  for (const theme of ["dark", "light"]) {
    await page.evaluate((t) => { localStorage.setItem("sb-theme", t); document.documentElement.dataset.theme = t; }, theme);
    await page.waitForTimeout(300);
    await page.screenshot({ path: `/tmp/zot-look-session-${theme}.png`, fullPage: false });
    await page.goto("/settings");
    await page.waitForTimeout(800);
    await page.screenshot({ path: `/tmp/zot-look-settings-${theme}.png`, fullPage: true });
    await sp.goto(ZOT_ID, s.id);
    for (const b of await sp.toolCards().all()) await sp.expand(b);
  }
});
