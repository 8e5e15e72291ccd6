// The operator's telemetry on the timeline in Chromium: the metrics lane of
// decode d0 draws a counter track per series (its label beside it, its line
// in the band), and the traces lane draws the wedged rooms' stage slices as
// orphaned (outlined), which the event panel explains.

import { test } from "node:test";
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { scratchDir } from "../scratchDir.js";
import { buildTelemetryWedge, FAILED, QUEUE, serveIncident, seriesOf, T0_US } from "../ui/telemetryWedge.js";
import { openPage, screenshot, serverAndBrowser, timelineSettled } from "./browserHarness.js";

const ID = "telemetry-wedge";
/** ui/web/counter-tracks.ts TRACK_COLORS */
const GAUGE_RGB: [number, number, number] = [0xc7, 0x92, 0xea];
const RATE_RGB: [number, number, number] = [0xff, 0xcb, 0x6b];
/** ui/view/spanTypes.ts, the orphaned stage's colour */
const ORPHAN_RGB: [number, number, number] = [0xff, 0x3b, 0x6b];
const RANK_ROW = "r:d0/decode|TP0";

const env = serverAndBrowser(undefined, () => {
  const dataDir = scratchDir("kvrewind-telemetry-e2e-");
  serveIncident(dataDir, ID, buildTelemetryWedge);
  return { dataDir };
});

/** The DOM parts the in-page probe uses (the tests compile without the DOM library). */
interface ProbeDom {
  document: {
    querySelector(selector: string): {
      width: number;
      getBoundingClientRect(): { left: number; top: number; width: number; height: number };
      getContext(kind: "2d"): { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } };
    } | null;
  };
}

/** Whether the canvas shows a colour within the vertical stretch [top, top + height) of page y, across the whole canvas. */
function colourInBand(page: Page, top: number, height: number, rgb: [number, number, number]): Promise<boolean> {
  return page.evaluate(
    ({ top, height, rgb }) => {
      const canvas = (globalThis as unknown as ProbeDom).document.querySelector("canvas.lanes-canvas")!;
      const box = canvas.getBoundingClientRect();
      const dpr = canvas.width / box.width;
      const img = canvas.getContext("2d").getImageData(0, Math.round((top - box.top) * dpr), canvas.width, Math.round(height * dpr));
      for (let i = 0; i < img.data.length; i += 4) {
        if (Math.abs(img.data[i]! - rgb[0]) < 8 && Math.abs(img.data[i + 1]! - rgb[1]) < 8 && Math.abs(img.data[i + 2]! - rgb[2]) < 8) return true;
      }
      return false;
    },
    { top, height, rgb },
  );
}

async function laneRow(page: Page, component: string): Promise<{ top: number; height: number }> {
  const label = page.locator(".label.depth-2", { has: page.locator(".name", { hasText: new RegExp(`^${component}$`) }) });
  const box = (await label.boundingBox())!;
  return { top: box.y, height: box.height };
}

async function open(fromUs: number, toUs: number): Promise<{ page: Page; errors: string[] }> {
  const opened = await openPage(env.browser, `${env.server.url}?incident=${ID}&from=${fromUs}&to=${toUs}&row=${encodeURIComponent(RANK_ROW)}`);
  await timelineSettled(opened.page);
  return opened;
}

test("the metrics lane draws a track per series, labelled with the series, the gauge's line in the first band and the counter's rate in the second", async () => {
  const { page, errors } = await open(T0_US, T0_US + 3000e6);
  await page.locator(".timeline[data-tracks='2']").waitFor();
  assert.deepEqual(await page.locator(".label .track-label").allTextContents(), [seriesOf(QUEUE), `${seriesOf(FAILED)} (rate /s)`]);
  const row = await laneRow(page, "metrics");
  assert.equal(row.height, 60, "two bands of 30 px");
  assert.ok(await colourInBand(page, row.top, 30, GAUGE_RGB), "the gauge's line in its band");
  assert.ok(!(await colourInBand(page, row.top, 30, RATE_RGB)), "no rate line in the gauge's band");
  assert.ok(await colourInBand(page, row.top + 30, 30, RATE_RGB), "the counter's rate in its band");

  // Hovering the gauge's band names the sample under the pointer: series, value and time.
  const canvas = (await page.locator("canvas.lanes-canvas").boundingBox())!;
  const x = canvas.x + ((T0_US + 600e6 - T0_US) / 3000e6) * canvas.width;
  await page.mouse.move(x, row.top + 15);
  await page.locator(".tooltip:not([hidden])").waitFor();
  assert.match((await page.locator(".tooltip").textContent())!, /^sglang:num_decode_transfer_queue_reqs\{.*\} value 3 at 2026-11-20 03:[45]\d:\d\d/);
  await screenshot(page, "telemetry-counter-tracks");
  assert.deepEqual(errors, []);
});

test("the wedged rooms' stage slices are drawn orphaned, the finished rooms' are not, and the event panel says why", async () => {
  const wedged = await open(T0_US + 294e6, T0_US + 302e6);
  const traces = await laneRow(wedged.page, "traces");
  assert.ok(await colourInBand(wedged.page, traces.top, traces.height, ORPHAN_RGB), "orphaned slices drawn in the traces lane");
  // A click on the first wedged room's decode_bootstrap slice (295.2 s to 296 s) opens its span.
  const canvas = (await wedged.page.locator("canvas.lanes-canvas").boundingBox())!;
  await wedged.page.mouse.click(canvas.x + ((295.6e6 - 294e6) / 8e6) * canvas.width, traces.top + traces.height - 3);
  const note = wedged.page.locator(".event-panel .span-note");
  await note.waitFor();
  assert.match((await note.textContent())!, /its request never finished: no root span arrived/);
  assert.equal(await wedged.page.locator(".event-panel td", { hasText: "8972542885242963296" }).count(), 1);
  await screenshot(wedged.page, "telemetry-orphaned-slices");
  assert.deepEqual(wedged.errors, []);
  await wedged.page.close();

  const finished = await open(T0_US + 4e6, T0_US + 9e6);
  const row = await laneRow(finished.page, "traces");
  assert.ok(!(await colourInBand(finished.page, row.top, row.height, ORPHAN_RGB)), "a finished room's slices are not orphaned");
  assert.deepEqual(finished.errors, []);
});
