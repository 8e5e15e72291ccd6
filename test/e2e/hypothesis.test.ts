// The hypothesis box, in Chromium, on the HiCache race fixture:
// - a named hypothesis in the URL opens checked: its verdict beside the
//   findings, its witness lines, its violations flagged on the timeline and
//   on the overview strip; a flag of either or a witness line lands the
//   cursor on the violating read;
// - a property typed in the box is checked and kept in the URL; a misspelt
//   kind is shown with its position; the ledger lists every named one.

import { test } from "node:test";
import assert from "node:assert/strict";
import { getJson } from "../ui/serverHarness.js";
import { openPage, screenshot, serverAndBrowser, timelineSettled, waitForCursor, waitForUrl, withFixtures } from "./browserHarness.js";
import { loadLibrary } from "../../analyzer/hypotheses/library.js";

const RACE = "hicache-indexk-race";
const env = serverAndBrowser(withFixtures(RACE));

test("a named hypothesis in the URL: verdict beside the findings, violations flagged, a flag lands on the read", async () => {
  const { page, errors } = await openPage(env.browser, `${env.server.url}?incident=${RACE}&hyp=hicache-gated-index-k-read`);
  await timelineSettled(page);
  const verdict = page.locator(".hypothesis-box .hyp-verdict");
  await verdict.waitFor();
  assert.match((await verdict.textContent()) ?? "", /^violated · 34 of 342 instance\(s\) violated \(9\.9%\)$/);
  const witnesses = page.locator(".hypothesis-box .hyp-witness");
  assert.ok((await witnesses.count()) >= 2);
  const flags = page.locator(".flags .flag.sev-hypothesis");
  assert.equal(await flags.count(), 10, "one flag per witness shown");
  const body = (await getJson(env.server, `/api/incidents/${RACE}/check?h=hicache-gated-index-k-read`)).body as { placed: { seq: number }[] };
  // The overview strip carries the same violations beside the findings' flags, and one lands on its read.
  const overviewFlags = page.locator(".overview-flags .overview-flag.sev-hypothesis");
  assert.equal(await overviewFlags.count(), 10, "the violations on the overview too");
  assert.ok((await page.locator(".overview-flags .overview-flag:not(.sev-hypothesis)").count()) > 0, "beside the findings' flags");
  const last = overviewFlags.last();
  const lastId = Number((await last.getAttribute("data-finding"))!.slice(1));
  await last.click();
  assert.equal(await waitForCursor(page, body.placed[lastId - 1]!.seq, body.placed[lastId - 1]!.seq + 1), body.placed[lastId - 1]!.seq, "the overview flag's read is selected");
  const visible = flags.locator("visible=true");
  await screenshot(page, "hypothesis-flags");
  if ((await visible.count()) > 0) {
    const id = Number((await visible.first().getAttribute("data-finding"))!.slice(1));
    const read = body.placed[id - 1]!.seq;
    await visible.first().click();
    // Bounded to the read: unbounded, the wait returns the cursor the overview click left before this click lands.
    assert.equal(await waitForCursor(page, read, read + 1), read, "the flag's read is selected");
  }
  const seq = Number(await witnesses.first().getAttribute("data-seq"));
  await witnesses.first().click();
  assert.equal(await waitForCursor(page, seq, seq + 1), seq);
  const { event } = (await getJson(env.server, `/api/incidents/${RACE}/events/${seq}`)).body as { event: { kind: string } };
  assert.equal(event.kind, "kernel.read");
  assert.deepEqual(errors, []);
});

test("a property typed in the box is checked and kept in the URL; a misspelt kind shows its position; the ledger lists the library", async () => {
  const { page, errors } = await openPage(env.browser, `${env.server.url}?incident=${RACE}`);
  await timelineSettled(page);
  const input = page.locator(".hypothesis-box .hyp-input");
  await input.fill("every kernel.read where consumer >= 0 has hicache.wait after within 5ms same rank, layer, consumer = slot");
  await input.press("Enter");
  const verdict = page.locator(".hypothesis-box .hyp-verdict");
  await verdict.waitFor();
  assert.match((await verdict.textContent()) ?? "", /^(violated|holds) · \d+ of 342 instance/);
  await waitForUrl(page, "hyp=every+kernel.read");
  await input.fill("every kernel.red has kv.notify before same room");
  await page.locator(".hypothesis-box .hyp-check").click();
  const error = page.locator(".hypothesis-box .hyp-error");
  await error.waitFor();
  assert.equal(await error.textContent(), "expr:1:7: unknown kind 'kernel.red' (did you mean kernel.read?)");
  assert.equal(await page.locator(".flags .flag.sev-hypothesis").count(), 0, "no flags for a hypothesis that did not parse");
  assert.equal(await page.locator(".overview-flags .overview-flag.sev-hypothesis").count(), 0, "nor on the overview");
  const ledger = page.locator(".hypothesis-box .hyp-ledger");
  await ledger.locator("summary").click();
  assert.equal(await ledger.locator("li").count(), loadLibrary().length);
  assert.match((await ledger.locator("li[data-hypothesis=checksums-agree]").textContent()) ?? "", /violated · 50\/1640$/);
  assert.deepEqual(errors.filter((e) => !/400/.test(e)), [], "only the refused check's 400");
});
