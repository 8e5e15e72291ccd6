// End to end in Chromium on the stale-slot-reuse bundle, uploaded as a folder:
// the top suspect's pages at the cursor, an event picked on the canvas, the
// room's flow arrows, collapsing a group, and the cursor set from the axis.
//
// Expectation by hand (DESIGN.md seed case 4, fixtures/README.md): decode
// frees an aborted room's pages while prefill's write for it is still in
// flight, a new room gets those pages and reads them. So at the new room's
// read, its pages name the old room as last writer, not landed.

import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { FIXTURES } from "../ui/serverHarness.js";
import { canvasHasColourNear, canvasHasColour, openPage, screenshot, serverAndBrowser, timelineSettled, waitForCursor, WITNESS_RGB, FLOW_RGB } from "./browserHarness.js";

const env = serverAndBrowser();

test("folder upload, stale pages at the read, pick on the canvas, flow, collapse, cursor from the axis", async () => {
  const { page, errors } = await openPage(env.browser, env.server.url);
  await page.setInputFiles("#upload-dir", join(FIXTURES, "stale-slot-reuse"));
  const row = page.locator("tr.incident[data-id=stale-slot-reuse]");
  await row.locator("text=ready").waitFor();
  assert.equal(await row.locator(".top-suspect .cause").textContent(), "stale-slot-reuse");
  await row.locator("a").click();
  await timelineSettled(page);

  // The top suspect's first finding, from the suspect card.
  await page.locator(".suspects li.suspect").first().locator(".suspect-head").click();
  const cursor = await waitForCursor(page);
  await timelineSettled(page);
  const finding = page.locator(".findings li.finding.selected");
  assert.equal(await finding.locator(".rule").textContent(), "stale-slot-reuse");
  const witness = await finding.locator(".witness-line code").allTextContents();
  const freed = witness.map((t) => /"ev": "kv\.free", "room": (\d{19})/.exec(t)).find(Boolean);
  const read = witness.map((t) => /"ev": "kernel\.read", .*"room": (\d{19})/.exec(t)).find(Boolean);
  assert.ok(freed && read, "the witness shows the old room's free and the new room's read");
  const [oldRoom, newRoom] = [freed[1]!, read[1]!];
  assert.notEqual(oldRoom, newRoom);

  // Pick the first witness on the canvas (the flag stands 6 px right of it).
  const flag = page.locator(".flag.active");
  const box = (await flag.boundingBox())!;
  const at = { x: box.x - 6, y: box.y + box.height / 2 };
  assert.ok(await canvasHasColourNear(page, at.x, at.y, WITNESS_RGB));
  await page.mouse.click(at.x, at.y);
  await page.locator(".event-panel").locator(`text=${witness[0]!.slice(0, 40)}`).first().waitFor();
  assert.equal(await page.locator(".event-panel pre.raw").textContent(), witness[0]);
  assert.ok(await canvasHasColour(page, FLOW_RGB), "the selected room's flow is drawn");

  // The finding groups every room that read stale pages; its first instance's read, opened from its witness line.
  const readLine = finding.locator(".witness-line", { hasText: new RegExp(`"ev": "kernel\\.read", .*"room": ${newRoom}`) }).first();
  const readSeq = Number(await readLine.getAttribute("data-seq"));
  await readLine.click();
  await waitForCursor(page, readSeq, readSeq + 1);
  // At the read the new room's pages were last written by the old room, and that write has not landed.
  assert.match((await page.locator(".event-panel pre.raw").textContent())!, /"ev": "kernel\.read"/);
  const pages = page.locator(".state-panel details", { hasText: `Pages of room ${newRoom}` });
  const stale = pages.locator("tbody tr", { hasText: oldRoom });
  assert.ok((await stale.count()) > 0, "pages of the new room written by the old room");
  for (const cells of await stale.allInnerTexts()) assert.match(cells, /in flight/);
  await screenshot(page, "stale-pages-at-read");

  // Collapsing a group leaves one row for it.
  const labels = page.locator(".labels .label");
  const before = await labels.count();
  const group = page.locator(".labels .label.depth-0").first();
  await group.click();
  assert.ok((await labels.count()) < before);
  assert.doesNotMatch((await group.getAttribute("class"))!, /\bopen\b/);

  // A click on the time axis, left of everything, puts the cursor on an earlier event.
  const axis = (await page.locator("svg.axis").boundingBox())!;
  await page.mouse.click(axis.x + 3, axis.y + axis.height / 2);
  const earlier = await waitForCursor(page, 0, cursor);
  assert.ok(earlier < cursor);
  await screenshot(page, "cursor-from-axis");
  assert.deepEqual(errors, []);
});
