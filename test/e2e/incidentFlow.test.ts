// End to end in Debian's Chromium: upload the NIXL abort-wedge bundle through
// the page, wait for the analysis, follow the top suspect to its flag, check
// the witness is highlighted and the state at the cursor, step back, and
// reopen the same view from the URL.
//
// Expectations, by hand from fixtures/README.md and the reference:
// - the top suspect is unhandled-abort (the bundle's expected.json);
// - every p0 bootstrap thread dies on its first ABORT frame (NIXL 0.5.14
//   has no handler; its GUARD assertion fails, protocol ref §7.1), so at the
//   finding's latest witness the p0/prefill/tp0 thread is dead;
// - that latest witness is d0's "timed out after 300.0s in
//   KVPoll.WaitingForInput" line of a re-sent room: after it the room's decode
//   side is Failed (§5.2 waiting timeout), and one event earlier it is not.

import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { fixtureTarGz } from "../ui/serverHarness.js";
import { canvasHasColourNear, openPage, screenshot, timelineSettled, waitForCursor, waitForUrl, WITNESS_RGB, serverAndBrowser } from "./browserHarness.js";
import { scratchDir } from "../scratchDir.js";

const env = serverAndBrowser();


async function decodeStateOf(page: Page, room: string): Promise<string | null> {
  const row = page.locator(".state-panel details.rooms tbody tr", { has: page.locator("td:first-child", { hasText: new RegExp(`^${room}$`) }) });
  if ((await row.count()) === 0) return null;
  return row.locator("td:nth-child(3) .kvpoll").getAttribute("data-kvpoll");
}

test("upload, top suspect, flag, witness, state at the cursor, step back, reload", async () => {
  const archive = join(scratchDir("kvrewind-e2e-"), "nixl-abort-wedge.tar.gz");
  writeFileSync(archive, await fixtureTarGz("nixl-abort-wedge"));
  const { page, errors } = await openPage(env.browser, env.server.url);

  // Upload through the page and wait for the background analysis.
  await page.setInputFiles("#upload-files", archive);
  const row = page.locator("tr.incident[data-id=nixl-abort-wedge]");
  await row.locator("text=ready").waitFor();
  assert.equal(await row.locator(".top-suspect .cause").textContent(), "unhandled-abort");
  await screenshot(page, "incident-list");

  // The incident: the top suspect and its first finding's flag.
  await row.locator("a").click();
  await timelineSettled(page);
  const topSuspect = page.locator(".suspects li.suspect").first();
  assert.equal(await topSuspect.getAttribute("data-cause"), "unhandled-abort");
  const findingId = (await topSuspect.locator(".ref").first().textContent())!;
  await screenshot(page, "incident-overview");

  const flag = page.locator(`.flag[data-finding="${findingId}"]`);
  await flag.click();
  const cursorSeq = await waitForCursor(page);
  await timelineSettled(page);
  assert.match((await flag.getAttribute("class"))!, /\bactive\b/);
  assert.equal(await page.locator(`.findings li.finding.selected`).getAttribute("data-finding"), findingId);

  // The witness is highlighted where the flag stands (the flag sits 6 px right of its witness mark).
  const flagBox = (await flag.boundingBox())!;
  assert.ok(await canvasHasColourNear(page, flagBox.x - 6, flagBox.y + flagBox.height / 2, WITNESS_RGB), "witness mark drawn at the flag");
  const witnessTexts = await page.locator(".finding.selected .witness-line code").allTextContents();
  assert.ok(witnessTexts.some((t) => t.includes("First message should be b'NixlMsgGuard'. Foreign traffic?")));

  // The cursor is on the latest witness: the decode timeout of a re-sent room.
  const raw = (await page.locator(".event-panel pre.raw").textContent())!;
  assert.ok(witnessTexts.includes(raw), "the selected event is a witness line");
  const timedOut = /decode_req\.req\.bootstrap_room=(\d{19}) with exception .* timed out after 300\.0s in KVPoll\.WaitingForInput/.exec(raw);
  assert.ok(timedOut, `the latest witness is a waiting timeout: ${raw}`);
  const room = timedOut[1]!;
  assert.equal(await decodeStateOf(page, room), "Failed");
  const tp0Thread = page.locator(".state-panel tr", { has: page.locator("td:first-child", { hasText: /^p0\/prefill\/tp0$/ }) });
  assert.equal(await tp0Thread.locator(".dead").textContent(), "dead");
  await screenshot(page, "finding-witness-state");

  // One event back the room's decode side is not Failed yet.
  await page.locator(".state-panel .step-back").click();
  const backSeq = await waitForCursor(page, 0, cursorSeq);
  assert.notEqual(await decodeStateOf(page, room), "Failed");
  await screenshot(page, "stepped-back");

  // The URL reopens the same view: finding, window, cursor and selection.
  await waitForUrl(page, `cursor=${backSeq}`);
  const url = page.url();
  const windowBefore = await page.locator(".window-span").textContent();
  await page.reload();
  await timelineSettled(page);
  await waitForCursor(page, backSeq, backSeq + 1);
  assert.equal(page.url(), url);
  assert.equal(await page.locator(".event-panel").getAttribute("data-seq"), String(backSeq));
  assert.equal(await page.locator(`.findings li.finding.selected`).getAttribute("data-finding"), findingId);
  assert.match((await flag.getAttribute("class"))!, /\bactive\b/);
  assert.equal(await page.locator(".window-span").textContent(), windowBefore);
  assert.notEqual(await decodeStateOf(page, room), "Failed");
  await screenshot(page, "reloaded");

  assert.deepEqual(errors, []);
});
