#!/usr/bin/env node
// Renders the app icons (public/icons/*.svg, drawn by hand) to the PNGs the web app manifest
// (app/manifest.ts) and iOS need, with the Chromium the e2e tests use: `node scripts/icons.mjs`.
import fs from "node:fs";
import path from "node:path";
import { chromium } from "@playwright/test";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const dir = path.join(root, "public", "icons");
const jobs = [
  { svg: "icon.svg", out: "icon-192.png", size: 192 },
  { svg: "icon.svg", out: "icon-512.png", size: 512 },
  { svg: "icon-maskable.svg", out: "icon-maskable-512.png", size: 512 },
  { svg: "icon-maskable.svg", out: "apple-touch-icon.png", size: 180 },
];

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: ["--no-sandbox"],
});
try {
  for (const j of jobs) {
    const page = await browser.newPage({ viewport: { width: j.size, height: j.size } });
    const svg = fs.readFileSync(path.join(dir, j.svg), "utf8");
    await page.setContent(
      `<html><body style="margin:0;background:transparent">${svg.replace("<svg ", `<svg width="${j.size}" height="${j.size}" `)}</body></html>`,
    );
    await page.screenshot({ path: path.join(dir, j.out), omitBackground: true });
    await page.close();
    console.log(`public/icons/${j.out}`);
  }
} finally {
  await browser.close();
}
