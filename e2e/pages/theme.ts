import type { Page } from "@playwright/test";

/** Switches the open page to `theme` at once, as the theme toggle does (stored, and set on <html>). */
export async function setTheme(page: Page, theme: "dark" | "light") {
  await page.evaluate((t) => {
    localStorage.setItem("sb-theme", t);
    document.documentElement.dataset.theme = t;
  }, theme);
}
