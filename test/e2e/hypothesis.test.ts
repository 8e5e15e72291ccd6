// The hypothesis box, in Chromium, on the HiCache race fixture:
// - a named hypothesis in the URL opens checked: its verdict beside the
//   findings, its witness lines, its violations flagged on the timeline;
//   a flag or a witness line lands the cursor on the violating read;
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
  const visible = flags.locator("visible=true");
  await screenshot(page, "hypothesis-flags");
  if ((await visible.count()) > 0) {
    const id = Number((await visible.first().getAttribute("data-finding"))!.slice(1));
    await visible.first().click();
    assert.equal(await waitForCursor(page), body.placed[id - 1]!.seq, "the flag's read is selected");
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
  const ledger = page.locator(".hypothesis-box .hyp-ledger");
  await ledger.locator("summary").click();
  assert.equal(await ledger.locator("li").count(), loadLibrary().length);
  assert.match((await ledger.locator("li[data-hypothesis=checksums-agree]").textContent()) ?? "", /violated · 50\/1640$/);
  assert.deepEqual(errors.filter((e) => !/400/.test(e)), [], "only the refused check's 400");
});
