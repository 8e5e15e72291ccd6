// A dumped page's bytes in Chromium (issue 15): the page-dumps bundle
// (test/bundles/README.md) uploaded as files; the torn page's finding opens
// its decode record, and the page panel shows the rows in hex and decoded
// beside prefill's, rows 37..63 highlighted, with the diagnosis; the state
// panel lists the room's dumped pages at the cursor and opens each.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { getJson, uploadFiles, waitForIncident } from "../ui/serverHarness.js";
import { openPage, screenshot, serverAndBrowser, timelineSettled, waitForCursor } from "./browserHarness.js";

const BUNDLE = fileURLToPath(new URL("../../../test/bundles/page-dumps/", import.meta.url));
const ID = "page-dumps";
const NEW = "7301152698145511823";

const env = serverAndBrowser(async (server) => {
  const files = readdirSync(BUNDLE, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => ({ name: relative(BUNDLE, join(d.parentPath, d.name)).split(sep).join("/"), content: readFileSync(join(d.parentPath, d.name)) }));
  const up = await uploadFiles(server, files, `?name=${ID}`);
  if (up.status !== 202) throw new Error(`upload: ${JSON.stringify(up.body)}`);
  const incident = await waitForIncident(server, ID);
  if (incident["status"] !== "ready") throw new Error(JSON.stringify(incident));
});

test("the torn page's finding opens the page's bytes: rows in hex and decoded, rows 37..63 highlighted, the diagnosis", async () => {
  const { page, errors } = await openPage(env.browser, `${env.server.url}?incident=${ID}`);
  await timelineSettled(page);
  const finding = page.locator(".findings li.finding", { hasText: "torn at row 37" }).filter({ hasText: "page-bytes" });
  await finding.locator(".finding-head").click();
  await finding.locator(".witness-line", { hasText: "decode-pages.jsonl:3" }).click();
  await waitForCursor(page);
  const panel = page.locator(".page-panel");
  await panel.locator("table.page-rows").waitFor();
  assert.equal(await panel.getAttribute("data-room"), NEW);
  assert.equal(await panel.getAttribute("data-page"), "40");
  assert.match((await panel.locator(".page-diagnosis").textContent())!, /^torn: torn at row 37: rows 0\.\.36 are the room's/);
  const differing = await panel.locator("tr.differs").evaluateAll((trs) => trs.map((tr) => Number(tr.getAttribute("data-row"))));
  assert.deepEqual(differing, Array.from({ length: 27 }, (_, i) => 37 + i));
  // Row 37 holds the old room's row (seed 1): 1.5, 0, 1, 0.5 … × 2/64; prefill's row 37 is the new room's.
  const row37 = await panel.locator("tr[data-row='37'] td.bytes").allTextContents();
  assert.equal(row37[0], "3c 00 38 30 c0 40 3c 00 … [0.046875, 0, 0.03125, 0.015625, …] ×0.03125");
  assert.equal(row37[1], "38 30 c0 40 3c 00 38 30 … [0.0625, 0.03125, -0.125, 0.125, …] ×0.0625");
  assert.equal(await panel.locator("tr[data-row='36']").getAttribute("class"), "");
  await screenshot(page, "page-bytes-torn");
  assert.deepEqual(errors, []);
});

test("the state panel lists the room's dumped pages at the cursor with the kernels' verdicts; each opens its bytes in the page panel", async () => {
  const { page, errors } = await openPage(env.browser, `${env.server.url}?incident=${ID}`);
  await timelineSettled(page);
  const finding = page.locator(".findings li.finding", { hasText: "torn at row 37" }).filter({ hasText: "page-bytes" });
  await finding.locator(".finding-head").click();
  await finding.locator(".witness-line", { hasText: "decode-pages.jsonl:3" }).click();
  await waitForCursor(page);
  const dumped = page.locator(".state-panel .dumped-pages");
  await dumped.locator("table").waitFor();
  assert.match((await dumped.locator("summary").textContent())!, new RegExp(`Dumped pages of room ${NEW}\s*2`));
  const prefillRow = dumped.locator("tbody tr", { hasText: "prefill_store" });
  const decodeRow = dumped.locator("tbody tr", { hasText: "decode_read" });
  assert.match((await decodeRow.textContent())!, /p40 pos 0.*fp8 8448 B.*differs: rows 37\.\.63 \(27\)/);
  // Prefill's page 7 of the room, opened from the state panel: its bytes, and nothing to compare it with.
  await prefillRow.locator("button.open-page").click();
  const panel = page.locator(".page-panel");
  await page.locator(".page-panel[data-page='7']").waitFor();
  assert.equal(await panel.getAttribute("data-room"), NEW);
  assert.equal(await panel.locator("tr.differs").count(), 0);
  // Back to the decode page: rows 37..63 highlighted again.
  await decodeRow.locator("button.open-page").click();
  await page.locator(".page-panel[data-page='40']").waitFor();
  const differing = await panel.locator("tr.differs").evaluateAll((trs) => trs.map((tr) => Number(tr.getAttribute("data-row"))));
  assert.deepEqual(differing, Array.from({ length: 27 }, (_, i) => 37 + i));
  assert.equal(await panel.getAttribute("data-seq"), await decodeRow.locator("button.open-page").getAttribute("data-seq"));
  assert.deepEqual(errors, []);
});

test("the page route validates its parameters: a bad seq is 400, a page never dumped 404", async () => {
  assert.equal((await getJson(env.server, `/api/incidents/${ID}/pages?seq=abc&page=40`)).status, 400);
  assert.equal((await getJson(env.server, `/api/incidents/${ID}/pages?seq=10&page=40&sql=1`)).status, 400);
  const none = await getJson(env.server, `/api/incidents/${ID}/pages?seq=1000&page=99`);
  assert.equal(none.status, 404);
  assert.match(String(none.body["error"]), /no dump of page 99/);
});
