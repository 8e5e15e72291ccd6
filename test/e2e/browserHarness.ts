// Debian's Chromium driven by playwright-core (no browser download), against a
// real server on an ephemeral port. Screenshots go to test-artifacts/.

import { mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type Page } from "playwright-core";

export const CHROMIUM = "/usr/bin/chromium";
export const ARTIFACTS = fileURLToPath(new URL("../../../test-artifacts/", import.meta.url));

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM });
}

export async function openPage(browser: Browser, url: string): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
  const errors: string[] = [];
  page.on("pageerror", (err) => errors.push(err.message));
  page.on("console", (msg) => {
    if (msg.type() === "error") errors.push(msg.text());
  });
  await page.goto(url);
  return { page, errors };
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: `${ARTIFACTS}${name}.png` });
}

/** Waits until the timeline holds data for its current view and has drawn it. */
export async function timelineSettled(page: Page): Promise<void> {
  await page.waitForSelector(".timeline[data-loading=false]");
}
