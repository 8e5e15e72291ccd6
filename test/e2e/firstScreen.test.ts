// The first screen and an incident opened too early, in Debian's Chromium:
// the list says what the tool is and how to get the example incidents; a
// link to an incident still being ingested shows the job's progress and
// opens the incident once it is ready, instead of failing; once the job has
// stored its findings the page shows the suspects while the timeline is
// indexed, and opens on what was picked there.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { FIXTURES, fixtureTarGz, holdReady, tarGz, uploadFiles, waitForIncident } from "../ui/serverHarness.js";
import { openPage, serverAndBrowser, timelineSettled } from "./browserHarness.js";

const env = serverAndBrowser();

test("the first screen says what kvrewind is, and an empty list says how to get the example incidents", async () => {
  const { page, errors } = await openPage(env.browser, env.server.url);
  await page.locator("table.incidents td.empty").waitFor();
  assert.equal(await page.locator("main h1").textContent(), "kvrewind");
  assert.match((await page.locator("main p.intro").textContent())!, /prefill\/decode-disaggregated .*suspects/);
  assert.match((await page.locator("table.incidents td.empty").textContent())!, /kvrewind demo/);
  // Every column header has a name, the actions column one a screen reader reads.
  const headers = await page.locator("table.incidents thead th").allTextContents();
  assert.deepEqual(headers.filter((t) => t.trim() === ""), []);
  assert.deepEqual(errors, []);
});

test("an incident opened while it is still being ingested shows its progress, then opens by itself", async () => {
  const sent = await uploadFiles(env.server, [{ name: "nixl-abort-wedge.tar.gz", content: await fixtureTarGz("nixl-abort-wedge") }]);
  assert.equal(sent.status, 202, JSON.stringify(sent.body));
  const id = (sent.body.incident as { id: string }).id;
  const { page, errors } = await openPage(env.browser, `${env.server.url}?incident=${encodeURIComponent(id)}`);
  // The job takes seconds: the first answer finds it queued or ingesting.
  await page.locator(".incident-wait .wait-status").waitFor();
  assert.match((await page.locator(".incident-wait .wait-status").textContent())!, /^(Waiting for its turn|Still (receiving|queued|ingesting|analyzing))/);
  assert.equal(await page.locator("text=Could not open").count(), 0);
  await waitForIncident(env.server, id);
  await timelineSettled(page);
  assert.equal(await page.locator(".incident-wait").count(), 0, "the waiting page gave way to the incident");
  assert.ok((await page.locator(".suspects li.suspect").count()) > 0);
  assert.deepEqual(errors, []);
});

test("the suspects show while the timeline is indexed, and the incident opens on the finding picked there", async () => {
  const top = (JSON.parse(readFileSync(join(FIXTURES, "nixl-abort-wedge", "expected.json"), "utf8")) as { topSuspect: string }).topSuspect;
  const hold = holdReady(env.server, "wedge-early");
  await uploadFiles(env.server, [{ name: "wedge-early.tar.gz", content: await fixtureTarGz("nixl-abort-wedge") }]);
  await hold.held;
  const { page, errors } = await openPage(env.browser, `${env.server.url}?incident=wedge-early`);
  const suspect = page.locator(".incident-wait .suspects li.suspect").first();
  await suspect.waitFor();
  assert.equal(await suspect.getAttribute("data-cause"), top);
  assert.equal(await page.locator(".incident-wait .wait-status").textContent(), "Still analyzing: indexing the timeline…");
  const abort = page.locator(".incident-wait li.finding", { hasText: "unhandled-abort" }).first();
  const fid = (await abort.getAttribute("data-finding"))!;
  await abort.locator("button.finding-head").click();
  await abort.locator(".witness-line", { hasText: "Foreign traffic?" }).first().waitFor();
  assert.match(page.url(), new RegExp(`finding=${fid}`));
  assert.match((await page.locator(".incident-wait .early-note").textContent())!, new RegExp(`opens on ${fid}`));

  hold.release();
  await timelineSettled(page);
  assert.equal(await page.locator(".incident-wait").count(), 0, "the waiting page gave way to the incident");
  assert.equal(await page.locator(".findings-panel li.finding.selected").getAttribute("data-selected"), fid);
  assert.deepEqual(errors, []);
});

test("after an upload the status line follows it: a name taken already is said, and the ready incident is a link that opens it", async () => {
  const { page, errors } = await openPage(env.browser, env.server.url);
  const archive = await fixtureTarGz("healthy");
  const file = { name: "healthy.tar.gz", mimeType: "application/gzip", buffer: archive };
  await page.setInputFiles("#upload-files", file);
  await page.locator(".upload-status a", { hasText: "open healthy" }).waitFor();
  assert.match((await page.locator(".upload-status").textContent())!, /^'healthy' is ready: open healthy\.$/);
  // The same bundle again: its id differs, and the status says why.
  await page.setInputFiles("#upload-files", file);
  await page.locator(".upload-status", { hasText: "exists already" }).waitFor();
  assert.match((await page.locator(".upload-status").textContent())!, /^Uploaded as 'healthy-2' \('healthy' exists already\)/);
  await page.locator(".upload-status a", { hasText: "open healthy" }).click();
  await timelineSettled(page);
  assert.match(page.url(), /incident=healthy-2/);
  assert.deepEqual(errors, []);
});

test("a failed upload's row stays one line high, with its reason folded, and offers no Re-analyze", async () => {
  const up = await uploadFiles(env.server, [{ name: "empty.tar.gz", content: await tarGz([]) }]);
  const id = (up.body.incident as { id: string }).id;
  assert.equal((await waitForIncident(env.server, id))["status"], "failed");
  const { page, errors } = await openPage(env.browser, env.server.url);
  const row = page.locator(`tr.incident[data-id="${id}"]`);
  await row.waitFor();
  assert.equal(await row.locator("button.reanalyze").isDisabled(), true);
  // As tall as a ready incident's row give or take a line: the reason's first words, the rest behind a click.
  const ready = page.locator('tr.incident[data-status="ready"]').first();
  const [failedH, readyH] = [(await row.boundingBox())!.height, (await ready.boundingBox())!.height];
  assert.ok(failedH <= readyH + 20, `failed row ${failedH} px, a ready one ${readyH} px: ${JSON.stringify(await row.innerText())}`);
  assert.deepEqual(errors, []);
});
