// Reading the NIXL abort wedge at a glance, in Chromium: the grouped findings
// (58 re-sent rooms that time out on d0 are one entry, fixtures/README.md),
// the flags agreeing with the list, the checks with nothing to report folded
// away, the overview brush setting the window, folding the empty stretches,
// hiding a kind from the legend, the keys (W/A/S/D, ?), Tab reaching lanes and
// findings, and text contrast (WCAG AA).

import { timelineExtent } from "../../ui/view/extent.js";
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { getJson } from "../ui/serverHarness.js";
import { openPage, screenshot, serverAndBrowser, stateSettled, timelineSettled, waitForCursor, waitForUrl, withFixtures } from "./browserHarness.js";

const ID = "nixl-abort-wedge";
const env = serverAndBrowser(withFixtures(ID));

async function open(query = ""): Promise<{ page: Page; errors: string[] }> {
  const opened = await openPage(env.browser, `${env.server.url}?incident=${ID}${query}`);
  await timelineSettled(opened.page);
  return opened;
}

const windowOf = async (page: Page) => {
  const t = page.locator(".timeline");
  return [Number(await t.getAttribute("data-from")), Number(await t.getAttribute("data-to"))] as const;
};

test("the 58 timed-out rooms are one finding that opens to its rooms; flags and list agree; other verdicts are folded", async () => {
  const { page, errors } = await open();
  const groups = page.locator(".findings:not(.other) > li.finding");
  const stall = groups.filter({ has: page.locator(".group-count", { hasText: "×58" }) });
  assert.equal(await stall.count(), 1, "one entry for the 58 re-sent rooms");
  assert.equal(await stall.locator(".rule").textContent(), "transfer-stall");
  // Severity order: the critical unhandled-abort first.
  assert.deepEqual((await groups.locator(".sev").allTextContents()).slice(0, 2), ["critical", "high"]);
  // One flag per violated entry that has a witness on the timeline, labelled like the entry.
  const flags = await page.locator(".flags .flag").evaluateAll((els) => els.map((e) => e.getAttribute("data-finding")));
  const listed = await groups.evaluateAll((els) => els.map((e) => e.getAttribute("data-finding")));
  assert.deepEqual([...flags].sort(), [...listed].filter((id) => flags.includes(id)).sort());
  assert.ok(flags.length >= 3);
  assert.equal(await page.locator(`.flags .flag[data-finding="${await stall.getAttribute("data-finding")}"]`).textContent(), `${await stall.getAttribute("data-finding")} ×58`);
  const other = page.locator("details.other-verdicts");
  assert.equal(await other.getAttribute("open"), null, "checks with no violation are folded");
  assert.match((await other.locator("summary").textContent())!, /consistent/);
  await screenshot(page, "story-overview");

  await stall.locator(".finding-head").click();
  await waitForCursor(page);
  const rooms = stall.locator(".group-rooms button.room");
  assert.equal(await rooms.count(), 58);
  const names = await rooms.evaluateAll((els) => els.map((e) => e.getAttribute("data-room")!));
  assert.ok(names.every((r) => /^\d{19}$/.test(r)) && names.includes("8449771539072680511"));
  // The analyzer made the 58 rooms one finding: a room of it opens that room's events, its first one selected.
  await stall.locator('.group-rooms button.room[data-room="3799591362462907685"]').click();
  await page.locator(".event-panel pre.raw", { hasText: "3799591362462907685" }).waitFor();
  await screenshot(page, "story-group-rooms");
  assert.deepEqual(errors, []);
});

test("brushing the overview sets the timeline's window", async () => {
  const { page, errors } = await open();
  const lanes = (await getJson(env.server, `/api/incidents/${ID}/lanes`)).body as { firstTsUs: number; lastTsUs: number };
  const { gaps } = (await getJson(env.server, `/api/incidents/${ID}/overview?buckets=100`)).body as { gaps: [number, number][] };
  const [start, end] = timelineExtent(lanes.firstTsUs, lanes.lastTsUs, gaps);
  const plot = (await page.locator(".overview-plot").boundingBox())!;
  const [a, b] = [0.2, 0.45];
  await page.mouse.move(plot.x + a * plot.width, plot.y + plot.height / 2);
  await page.mouse.down();
  await page.mouse.move(plot.x + b * plot.width, plot.y + plot.height / 2, { steps: 8 });
  await page.mouse.up();
  await timelineSettled(page);
  const [from, to] = await windowOf(page);
  const pxUs = (end - start) / plot.width;
  assert.ok(Math.abs(from - (start + a * (end - start))) < 3 * pxUs, `from ${from}`);
  assert.ok(Math.abs(to - (start + b * (end - start))) < 3 * pxUs, `to ${to}`);
  await waitForUrl(page, `from=${Math.floor(from)}`);
  assert.deepEqual(errors, []);
});

test("folding empty time folds the overview's gaps on the axis; hiding a kind from the legend leaves the window", async () => {
  const { page, errors } = await open();
  const { gaps } = (await getJson(env.server, `/api/incidents/${ID}/overview?buckets=100`)).body as { gaps: [number, number][] };
  assert.ok(gaps.length > 0);
  await page.locator(".timeline-area").click({ position: { x: 5, y: 5 } });
  await page.keyboard.press("g");
  await page.locator("svg.axis .tick.fold").first().waitFor();
  assert.equal(await page.locator("svg.axis .tick.fold").count(), gaps.length);
  assert.equal(await page.locator(".toggle.folds").getAttribute("aria-pressed"), "true");
  await waitForUrl(page, "folds=1");
  await screenshot(page, "story-folded");

  const refetch = page.waitForResponse((r) => r.url().includes("/events?") && r.url().includes("hide="));
  await page.locator('.legend .chip[data-kind="http.access"]').click();
  const answer = (await (await refetch).json()) as { kind: number[]; mode: string };
  const kinds = ((await getJson(env.server, `/api/incidents/${ID}/lanes`)).body as { kinds: string[] }).kinds;
  if (answer.mode === "events") assert.ok(!answer.kind.includes(kinds.indexOf("http.access")));
  assert.equal(await page.locator('.legend .chip[data-kind="http.access"]').getAttribute("aria-pressed"), "false");
  await waitForUrl(page, "hide=http.access");
  // Reopened from the URL: still folded and hidden.
  await page.reload();
  await timelineSettled(page);
  assert.equal(await page.locator('.legend .chip[data-kind="http.access"]').getAttribute("aria-pressed"), "false");
  assert.equal(await page.locator(".toggle.folds").getAttribute("aria-pressed"), "true");
  assert.deepEqual(errors, []);
});

test("W/S zoom and A/D pan the window; ? lists the keys", async () => {
  const { page, errors } = await open();
  await page.locator("canvas.lanes-canvas").focus();
  const [f0, t0] = await windowOf(page);
  await page.keyboard.press("w");
  await timelineSettled(page);
  const [f1, t1] = await windowOf(page);
  assert.ok(Math.abs((t0 - f0) / (t1 - f1) - 1.6) < 0.01, `zoomed in 1.6×: ${(t0 - f0) / (t1 - f1)}`);
  assert.ok(Math.abs((f1 + t1) / 2 - (f0 + t0) / 2) < (t0 - f0) / 1000, "about the middle");
  await page.keyboard.press("d");
  await timelineSettled(page);
  const [f2, t2] = await windowOf(page);
  assert.ok(Math.abs(f2 - f1 - 0.2 * (t1 - f1)) < (t1 - f1) / 500, "panned forward a fifth of the window");
  assert.ok(Math.abs(t2 - f2 - (t1 - f1)) < 2);
  await page.keyboard.press("a");
  await page.keyboard.press("s");
  await timelineSettled(page);
  const [f3, t3] = await windowOf(page);
  assert.ok(Math.abs(t3 - f3 - (t0 - f0)) < (t0 - f0) / 1000, "zoomed back out");
  await page.keyboard.press("?");
  const dialog = page.locator("dialog.keys-dialog");
  await dialog.waitFor();
  assert.match((await dialog.textContent())!, /W \/ S.*zoom in \/ out/);
  await screenshot(page, "story-keys");
  await page.keyboard.press("Escape");
  await dialog.waitFor({ state: "hidden" });
  assert.deepEqual(errors, []);
});

test("Tab reaches the timeline, the lanes and the findings; Enter opens a lane group", async () => {
  const { page, errors } = await open();
  const reached = new Set<string>();
  await page.locator(".back").focus();
  for (let i = 0; i < 120 && reached.size < 3; i++) {
    await page.keyboard.press("Tab");
    const cls = await page.evaluate(() => (globalThis as unknown as { document: { activeElement: { className: string } | null } }).document.activeElement?.className ?? "");
    if (/\blanes-canvas\b/.test(cls)) reached.add("canvas");
    if (/\blabel depth-/.test(cls)) reached.add("lane");
    if (/\bfinding-head\b/.test(cls)) reached.add("finding");
  }
  assert.deepEqual([...reached].sort(), ["canvas", "finding", "lane"]);
  const group = page.locator(".labels .label.depth-0").first();
  await group.focus();
  const rowsBefore = await page.locator(".labels .label").count();
  await page.keyboard.press("Enter");
  assert.ok((await page.locator(".labels .label").count()) < rowsBefore, "Enter closed the group");
  assert.equal(await page.locator(".labels .label.depth-0").first().getAttribute("aria-expanded"), "false");
  assert.deepEqual(errors, []);
});

/** The page's parts the contrast check reads (the tests compile without the DOM library). */
interface ContrastDom {
  document: { querySelectorAll(s: string): ArrayLike<ContrastEl> };
  getComputedStyle(el: ContrastEl): { color: string; backgroundColor: string; fontSize: string; fontWeight: string; visibility: string; opacity: string };
}
interface ContrastEl {
  parentElement: ContrastEl | null;
  childNodes: ArrayLike<{ nodeType: number; textContent: string | null }>;
  getClientRects(): ArrayLike<unknown>;
  className: unknown;
  tagName: string;
}

test("text on the page meets WCAG AA contrast", async () => {
  const { page } = await open();
  await page.locator(".findings li.finding .finding-head").first().click();
  await waitForCursor(page);
  await page.locator("details.other-verdicts summary").click();
  const failures = await page.evaluate(() => {
    const w = globalThis as unknown as ContrastDom;
    const rgb = (c: string) => (c.match(/[\d.]+/g) ?? []).map(Number);
    const lum = ([r, g, b]: number[]) =>
      [r!, g!, b!].map((v) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4)).reduce((s, v, i) => s + v * [0.2126, 0.7152, 0.0722][i]!, 0);
    const background = (el: ContrastEl | null): number[] => {
      for (; el; el = el.parentElement) {
        const c = rgb(w.getComputedStyle(el).backgroundColor);
        if (c.length === 3 || (c.length === 4 && c[3]! > 0.9)) return c.slice(0, 3);
      }
      return [13, 16, 22];
    };
    const out: string[] = [];
    for (const el of Array.from(w.document.querySelectorAll("body *"))) {
      const own = Array.from(el.childNodes).some((n) => n.nodeType === 3 && (n.textContent ?? "").trim());
      if (!own || el.getClientRects().length === 0 || el.tagName === "OPTION") continue;
      const s = w.getComputedStyle(el);
      if (s.visibility === "hidden") continue;
      const fg = rgb(s.color);
      if (fg.length === 4 && fg[3]! < 1) continue;
      const [a, b] = [lum(fg), lum(background(el))];
      const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
      const large = parseFloat(s.fontSize) >= 24 || (parseFloat(s.fontSize) >= 18.66 && Number(s.fontWeight) >= 700);
      if (ratio < (large ? 3 : 4.5)) out.push(`${el.tagName}.${String(el.className)} ${ratio.toFixed(2)} "${Array.from(el.childNodes).map((n) => n.textContent).join("").trim().slice(0, 30)}"`);
    }
    return out;
  });
  assert.deepEqual(failures, []);
});

test("the keyboard alone reaches events: ] with nothing selected places the cursor at the window's start, ] again steps to a later event", async () => {
  const { page, errors } = await open();
  await page.locator("canvas.lanes-canvas").focus();
  await page.keyboard.press("]");
  const placed = await waitForCursor(page);
  assert.match((await page.locator(".notice").textContent())!, /Cursor placed at the start of the window/);
  await page.keyboard.press("]");
  const next = await waitForCursor(page, placed + 1);
  assert.ok(next > placed);
  assert.deepEqual(errors, []);
});

test("the state panel: threads and queues before the rooms, links that say what they are, back to its top on a new cursor, and taller when its bar is dragged", async () => {
  const { page, errors } = await open();
  await page.locator(".flag").first().click();
  const flagged = await waitForCursor(page);
  await stateSettled(page);
  const titles = await page.locator(".state-panel details.state-section > summary").evaluateAll((els) => els.map((e) => (e as unknown as { firstChild: { nodeValue: string } }).firstChild.nodeValue));
  assert.ok(titles.indexOf("Bootstrap threads") < titles.findIndex((t) => t.startsWith("Rooms")), titles.join(" | "));
  for (const link of await page.locator(".state-panel button.cause:not(.inferred)").allTextContents()) assert.match(link, /^(seq \d+|[A-Za-z]+)$/);

  const panel = page.locator(".state-panel");
  await panel.evaluate((e) => ((e as unknown as { scrollTop: number }).scrollTop = 400));
  await page.locator("canvas.lanes-canvas").focus();
  await page.keyboard.press("[");
  // The panel is busy only once the new state is asked for: wait for the cursor to move first.
  await waitForCursor(page, 0, flagged);
  await stateSettled(page);
  assert.equal(await panel.evaluate((e) => (e as unknown as { scrollTop: number }).scrollTop), 0, "a new cursor shows the panel from its top");

  const before = (await page.locator(".bottom").boundingBox())!.height;
  const bar = (await page.locator(".bottom .splitter").boundingBox())!;
  await page.mouse.move(bar.x + bar.width / 2, bar.y + bar.height / 2);
  await page.mouse.down();
  await page.mouse.move(bar.x + bar.width / 2, bar.y + bar.height / 2 - 150, { steps: 6 });
  await page.mouse.up();
  const after = (await page.locator(".bottom").boundingBox())!.height;
  assert.ok(Math.abs(after - before - 150) <= 2, `${before} → ${after}`);
  await page.locator(".bottom .splitter").focus();
  await page.keyboard.press("ArrowDown");
  assert.ok(Math.abs((await page.locator(".bottom").boundingBox())!.height - (after - 24)) <= 2);
  assert.deepEqual(errors, []);
});

test("pinning: P on decode's rank label puts it at the top beside prefill's, named with its group; the URL keeps it; P again unpins", async () => {
  const { page, errors } = await open();
  const labels = page.locator(".labels .label");
  const decodeRank = page.locator('.labels .label.depth-1[data-key^="r:d0/decode|"]').last();
  const key = (await decodeRank.getAttribute("data-key"))!;
  await decodeRank.focus();
  await page.keyboard.press("p");
  const first = labels.first();
  assert.equal(await first.getAttribute("data-key"), key);
  assert.match((await first.getAttribute("class"))!, /\bpinned\b/);
  assert.match((await first.locator(".name").textContent())!, /^d0\/decode /, "a pinned rank is named with its group");
  assert.equal(await page.locator(`.labels .label[data-key="${key}"]`).count(), 1, "it left its group");
  // Another rank, of prefill, pinned with Shift+click, goes below it.
  const prefillRank = page.locator('.labels .label.depth-1:not(.pinned)[data-key^="r:p0/prefill|"]').first();
  const prefillKey = (await prefillRank.getAttribute("data-key"))!;
  await prefillRank.click({ modifiers: ["Shift"] });
  assert.deepEqual([await labels.nth(0).getAttribute("data-key"), await labels.nth(1).getAttribute("data-key")], [key, prefillKey]);
  const inUrl = (k: string) => `pin=${new URLSearchParams({ k }).toString().slice(2)}`;
  await waitForUrl(page, `${inUrl(key)}&${inUrl(prefillKey)}`);
  await page.reload();
  await timelineSettled(page);
  assert.equal(await labels.first().getAttribute("data-key"), key, "reopened from the URL, still pinned");
  await labels.first().focus();
  await page.keyboard.press("p");
  assert.equal(await labels.first().getAttribute("data-key"), prefillKey);
  assert.deepEqual(errors, []);
});
