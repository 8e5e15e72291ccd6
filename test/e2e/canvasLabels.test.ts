// Names on the timeline's canvas, in Debian's Chromium, read off the canvas
// calls themselves: none runs past the right edge, and a collective's name
// shared by the ranks waiting in it is written once, not once per rank row.

import { test } from "node:test";
import assert from "node:assert/strict";
import { openPage, serverAndBrowser, timelineSettled, withFixtures } from "./browserHarness.js";

const DESYNC = "overlap-desync";
const env = serverAndBrowser(withFixtures(DESYNC));

interface Written {
  text: string;
  x: number;
  y: number;
  w: number;
  canvasWidth: number;
}

test("names on the canvas: none cut by the right edge; a name repeated on the rows below it is written once", async () => {
  const { page, errors } = await openPage(env.browser, "about:blank", { ownTab: true });
  // Every fillText of the lanes canvas, with its measured width, kept for the test.
  await page.addInitScript(() => {
    const g = globalThis as unknown as { __written: Written[]; CanvasRenderingContext2D: { prototype: { fillText(t: string, x: number, y: number): void; measureText(t: string): { width: number } } } };
    g.__written = [];
    const proto = g.CanvasRenderingContext2D.prototype;
    const fillText = proto.fillText;
    proto.fillText = function (this: { canvas: { className: string; width: number; getBoundingClientRect(): { width: number } }; measureText(t: string): { width: number } }, t: string, x: number, y: number) {
      if (this.canvas.className.includes("lanes-canvas")) g.__written.push({ text: t, x, y, w: this.measureText(t).width, canvasWidth: this.canvas.getBoundingClientRect().width });
      return fillText.call(this, t, x, y);
    };
  });
  await page.goto(`${env.server.url}?incident=${DESYNC}`);
  await timelineSettled(page);
  // Open every rank of the first group: its ranks' rows sit one under another.
  for (const rank of await page.locator(".labels .label.depth-1").all()) await rank.click();
  await timelineSettled(page);
  await page.evaluate(() => ((globalThis as unknown as { __written: Written[] }).__written = []));
  await page.locator("canvas.lanes-canvas").focus();
  await page.keyboard.press("s");
  await timelineSettled(page);
  const written = await page.evaluate(() => (globalThis as unknown as { __written: Written[] }).__written);
  assert.ok(written.length > 0, "names were written");
  for (const w of written) assert.ok(w.x + w.w <= w.canvasWidth + 0.5, `'${w.text}' at ${w.x.toFixed(0)}+${w.w.toFixed(0)} runs past ${w.canvasWidth}`);
  // Within one frame (the y of a row repeats across frames, so count per distinct text, x and y), no name is written on two adjacent rows at the same x.
  const frame = new Set(written.map((w) => `${w.text}|${Math.round(w.x)}|${Math.round(w.y)}`));
  const ys = (text: string, x: number) => [...frame].filter((k) => k.startsWith(`${text}|${x}|`)).map((k) => Number(k.split("|")[2])).sort((a, b) => a - b);
  for (const key of frame) {
    const [text, x] = key.split("|") as [string, string];
    const rows = ys(text, Number(x));
    for (let i = 1; i < rows.length; i++) assert.ok(rows[i]! - rows[i - 1]! > 20, `'${text}' at x ${x} on adjacent rows y ${rows[i - 1]} and ${rows[i]}`);
  }
  assert.deepEqual(errors, []);
});
