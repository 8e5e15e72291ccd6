// Level A and AA of WCAG 2.1, as axe-core (the checker browsers' own
// devtools use) judges them, on the pages a user meets: the incident list
// and an incident's timeline with a finding selected and the state panel
// open, in Debian's Chromium. The canvas is drawn pixels; what axe reads is
// the page's structure, names and roles around it.

import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import type { Page } from "playwright-core";
import { openPage, serverAndBrowser, stateSettled, timelineSettled, waitForCursor, withFixtures } from "./browserHarness.js";

const WEDGE = "nixl-abort-wedge";
const env = serverAndBrowser(withFixtures(WEDGE));
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/** axe-core's violations of WCAG 2.0/2.1 A and AA on the page as it stands, one line each. */
async function violations(page: Page): Promise<string[]> {
  // Evaluated, not added as a script tag: the page's CSP rightly refuses inline scripts.
  await page.evaluate(AXE_SOURCE);
  const found = await page.evaluate(async () => {
    const page = globalThis as unknown as { document: unknown; axe: { run(ctx: unknown, opts: object): Promise<{ violations: AxeViolation[] }> } };
    const r = await page.axe.run(page.document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] } });
    return r.violations;
  });
  return found.map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.length} node(s), first ${v.nodes[0]?.target.join(" ")}`);
}

test("the incident list has no WCAG A/AA violation", async () => {
  const { page } = await openPage(env.browser, env.server.url);
  await page.locator(`tr.incident[data-id=${WEDGE}]`).waitFor();
  assert.deepEqual(await violations(page), []);
});

test("an incident's timeline, with a finding selected and the state at its cursor, has no WCAG A/AA violation", async () => {
  const { page } = await openPage(env.browser, `${env.server.url}?incident=${WEDGE}`);
  await timelineSettled(page);
  await page.locator(".flag").first().click();
  await waitForCursor(page);
  await stateSettled(page);
  assert.deepEqual(await violations(page), []);
});

test("on a narrow window every legend chip is on screen, whichever Tab reaches", async () => {
  const { page } = await openPage(env.browser, `${env.server.url}?incident=${WEDGE}`);
  await page.setViewportSize({ width: 900, height: 900 });
  await timelineSettled(page);
  const chips = page.locator(".legend .chip");
  assert.ok((await chips.count()) > 5);
  const width = page.viewportSize()!.width;
  for (const box of await chips.evaluateAll((els) => els.map((e) => (e as unknown as { getBoundingClientRect(): { left: number; right: number; width: number } }).getBoundingClientRect()))) {
    assert.ok(box.width > 0 && box.left >= 0 && box.right <= width, `a chip at ${box.left}–${box.right} of ${width} px`);
  }
  // The legend's box shows all of its chips: nothing is scrolled away.
  const clipped = await page.locator(".legend").evaluate((e) => { const el = e as unknown as { scrollWidth: number; clientWidth: number; scrollHeight: number; clientHeight: number }; return el.scrollWidth > el.clientWidth || el.scrollHeight > el.clientHeight; });
  assert.equal(clipped, false);
});
