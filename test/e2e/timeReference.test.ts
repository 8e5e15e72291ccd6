// One time reference on the page, in Debian's Chromium: the axis shows UTC
// wall-clock time, as findings and lines do, with each tick's offset from
// the first event in its tooltip; a finding's meta line gives its UTC time.

import { test } from "node:test";
import assert from "node:assert/strict";
import { getJson } from "../ui/serverHarness.js";
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
