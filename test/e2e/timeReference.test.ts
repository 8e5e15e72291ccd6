// One time reference on the page, in Debian's Chromium: the axis shows UTC
// wall-clock time, as findings and lines do, with each tick's offset from
// the first event in its tooltip; a finding's meta line gives its UTC time.

import { test } from "node:test";
import assert from "node:assert/strict";
import { getJson, uploadFiles, waitForIncident } from "../ui/serverHarness.js";
import { openPage, serverAndBrowser, timelineSettled, withFixtures } from "./browserHarness.js";

const WEDGE = "nixl-abort-wedge";
const env = serverAndBrowser(withFixtures(WEDGE));

/** "HH:MM:SS" of a UTC microsecond time. */
const clock = (us: number): string => new Date(us / 1000).toISOString().slice(11, 19);

test("the axis reads in UTC wall-clock time within the incident's span; a tick's tooltip gives its offset", async () => {
  const { page, errors } = await openPage(env.browser, `${env.server.url}?incident=${WEDGE}`);
  await timelineSettled(page);
  const lanes = (await getJson(env.server, `/api/incidents/${WEDGE}/lanes`)).body as { firstTsUs: number; lastTsUs: number };
  const ticks = page.locator("svg.axis g.tick:not(.fold) text");
  assert.ok((await ticks.count()) >= 3);
  const texts = await ticks.evaluateAll((els) => els.map((e) => (e as unknown as { firstChild: { nodeValue: string } }).firstChild.nodeValue));
  for (const t of texts) {
    assert.match(t, /^\d\d:\d\d:\d\d(\.\d+)?$/, t);
    assert.ok(t.slice(0, 8) >= clock(lanes.firstTsUs - 60e6) && t.slice(0, 8) <= clock(lanes.lastTsUs + 60e6), `${t} outside ${clock(lanes.firstTsUs)}–${clock(lanes.lastTsUs)}`);
  }
  for (const title of await page.locator("svg.axis g.tick:not(.fold) text title").allTextContents()) assert.match(title, /^[+−][\d:.]+s? from the first event$/, title);
  assert.deepEqual(errors, []);
});

test("a finding's meta line gives its UTC time, the same clock as the axis", async () => {
  const { page } = await openPage(env.browser, `${env.server.url}?incident=${WEDGE}`);
  await timelineSettled(page);
  const findings = (await getJson(env.server, `/api/incidents/${WEDGE}/findings`)).body as { findings: { id: string; tsUs: number | null }[] };
  const first = page.locator(".findings li.finding").first();
  const id = (await first.getAttribute("data-finding"))!;
  const finding = findings.findings.find((f) => f.id === id)!;
  assert.notEqual(finding.tsUs, null, `${id} has a time`);
  await first.locator("button.finding-head").click();
  const meta = first.locator(".finding-body .meta");
  await meta.waitFor();
  assert.match((await meta.textContent())!, new RegExp(`^${id} at ${clock(finding.tsUs!)}\\.\\d{6} UTC`));
  assert.match((await meta.getAttribute("title"))!, /from the first event$/);
});

/** A prefill log: a batch line every 2 s for a minute, then one line 32 minutes later (a Gloo timeout when the group was torn down). */
function lateOutlierLog(): string {
  const lines: string[] = [];
  for (let s = 0; s < 60; s += 2) {
    lines.push(`[2026-06-11 14:00:${String(s).padStart(2, "0")} DP0 TP0] Prefill batch, #new-seq: 1, #new-token: 2048, #cached-token: 0, token usage: 0.02, #running-req: 1, #queue-req: 0`);
  }
  lines.push("[2026-06-11 14:32:00 DP0 TP0] Scheduler hit an exception: RuntimeError: [../third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81] Timed out waiting 1800000ms for recv operation to complete");
  return lines.join("\n") + "\n";
}

test("Fit on an incident whose events end with one far outlier folds the empty half hour and says so", async () => {
  const up = await uploadFiles(env.server, [{ name: "late-outlier/p0/prefill-tp0.log", content: lateOutlierLog() }], "?name=late-outlier");
  assert.equal(up.status, 202, JSON.stringify(up.body));
  const id = (up.body.incident as { id: string }).id;
  assert.equal((await waitForIncident(env.server, id))["status"], "ready");
  const { page, errors } = await openPage(env.browser, `${env.server.url}?incident=${encodeURIComponent(id)}`);
  await timelineSettled(page);
  // Opening fits the incident: the 31-minute stretch is folded, not left to squeeze the minute of events.
  assert.equal(await page.locator(".toggle.folds").getAttribute("aria-pressed"), "true");
  assert.match((await page.locator(".notice").textContent())!, /^Fit folded 1 stretch without events \(the longest 31\.\d min\); G unfolds them\.$/);
  assert.equal(await page.locator("svg.axis .tick.fold").count(), 1);
  // G unfolds it; Fit folds it again.
  await page.locator("canvas.lanes-canvas").focus();
  await page.keyboard.press("g");
  assert.equal(await page.locator(".toggle.folds").getAttribute("aria-pressed"), "false");
  await page.keyboard.press("f");
  assert.equal(await page.locator(".toggle.folds").getAttribute("aria-pressed"), "true");
  assert.deepEqual(errors, []);
});

test("records of unknown time are drawn apart, under a 'time unknown' mark on the axis, before the first dated time", async () => {
  const dated = "[2026-06-11 14:00:01 DP0 TP1] Prefill batch, #new-seq: 1, #new-token: 2048, #cached-token: 0, token usage: 0.02, #running-req: 1, #queue-req: 0\n";
  const undated = "Exception in thread Thread-3 (bootstrap_thread):\nTraceback (most recent call last):\n  File \"/usr/lib/python3.12/threading.py\", line 1075, in _bootstrap_inner\n    self.run()\nAssertionError\n";
  const up = await uploadFiles(env.server, [
    { name: "pod/sglang-prefill-0/prefill-tp1.log", content: dated },
    { name: "pod/sglang-prefill-0/previous-tp1.log", content: undated },
  ], "?name=undated-capture");
  const id = (up.body.incident as { id: string }).id;
  assert.equal((await waitForIncident(env.server, id))["status"], "ready");
  const { page, errors } = await openPage(env.browser, `${env.server.url}?incident=${encodeURIComponent(id)}`);
  await timelineSettled(page);
  const unknown = page.locator("svg.axis g.tick.fold text", { hasText: "time unknown" });
  assert.equal(await unknown.count(), 1);
  const ticks = await page.locator("svg.axis g.tick:not(.fold)").evaluateAll((els) => els.map((e) => Number((e as unknown as { getAttribute(n: string): string }).getAttribute("transform").match(/translate\(([\d.-]+)/)![1])));
  const unknownX = Number((await page.locator("svg.axis g.tick.fold", { has: page.locator("text", { hasText: "time unknown" }) }).getAttribute("transform"))!.match(/translate\(([\d.-]+)/)![1]);
  assert.ok(ticks.every((x) => x > unknownX), "every clock time stands right of the undated records");
  // The mark's label is whole inside the axis, and no clock label overlaps it.
  type Box = { left: number; right: number };
  type Boxed = { getBoundingClientRect(): Box };
  const axisLeft = await page.locator("svg.axis").evaluate((el) => (el as unknown as Boxed).getBoundingClientRect().left);
  const mark = await unknown.evaluate((el) => {
    const r = (el as unknown as Boxed).getBoundingClientRect();
    return { left: r.left, right: r.right };
  });
  assert.ok(mark.left >= axisLeft, `the 'time unknown' label starts at ${mark.left}, left of the axis at ${axisLeft}`);
  const clocks = await page.locator("svg.axis g.tick:not(.fold) text").evaluateAll((els) =>
    els.map((el) => {
      const r = (el as unknown as Boxed).getBoundingClientRect();
      return { left: r.left, right: r.right };
    }),
  );
  for (const clock of clocks) {
    assert.ok(clock.right <= mark.left || clock.left >= mark.right, `a clock label at ${clock.left}–${clock.right} overlaps 'time unknown' at ${mark.left}–${mark.right}`);
  }
  assert.deepEqual(errors, []);
});
