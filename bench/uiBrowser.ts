// Measuring the timeline page in headless Chromium: time to first render,
// frame times while zooming and panning (requestAnimationFrame deltas recorded
// in the page), and the browser's memory.

import { readFileSync } from "node:fs";
import { chromium, type Page } from "playwright-core";

export interface UiFigures {
  firstRenderMs: number;
  frames: number;
  p50FrameMs: number;
  p95FrameMs: number;
  maxFrameMs: number;
  /** Intervals longer than one and a half display periods: frames the page missed. */
  missedFrames: number;
  /** Time spent in the page's animation-frame callbacks (drawing), per frame. */
  p50DrawMs: number;
  p95DrawMs: number;
  maxDrawMs: number;
  /** Window requests the page made during the gestures, and their p95 duration. */
  fetches: number;
  p95FetchMs: number;
  jsHeapMb: number;
  rendererPssMb: number;
  browserPssMb: number;
}

export const CHROMIUM = "/usr/bin/chromium";

export async function measurePage(url: string): Promise<UiFigures> {
  const browser = await chromium.launch({ executablePath: CHROMIUM });
  try {
    const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
    // Every animation-frame callback timed: the page draws in them.
    await page.addInitScript(() => {
      const w = globalThis as unknown as { __drawMs: number[]; __raf: (cb: (t: number) => void) => number; requestAnimationFrame(cb: (t: number) => void): number };
      w.__drawMs = [];
      const raf = w.requestAnimationFrame.bind(w);
      w.__raf = raf;
      w.requestAnimationFrame = (cb) =>
        raf((t) => {
          const t0 = performance.now();
          cb(t);
          w.__drawMs.push(performance.now() - t0);
        });
    });
    await page.goto(url);
    await page.waitForFunction(() => performance.getEntriesByName("kvrewind:first-render").length > 0);
    const firstRenderMs = await page.evaluate(() => performance.getEntriesByName("kvrewind:first-render")[0]!.startTime);
    await page.waitForSelector(".timeline[data-loading=false]");
    const fetchesBefore = await windowFetches(page);
    await page.evaluate(() => ((globalThis as unknown as { __drawMs: number[] }).__drawMs = []));
    const frameTimes = await interact(page);
    const draws = (await page.evaluate(() => (globalThis as unknown as { __drawMs: number[] }).__drawMs)).sort((a, b) => a - b);
    await page.waitForSelector(".timeline[data-loading=false]");
    const fetches = (await windowFetches(page)).slice(fetchesBefore.length);
    const sorted = [...frameTimes].sort((a, b) => a - b);
    const memory = chromiumPssMb();
    return {
      firstRenderMs,
      frames: sorted.length,
      p50FrameMs: quantile(sorted, 0.5),
      p95FrameMs: quantile(sorted, 0.95),
      maxFrameMs: sorted[sorted.length - 1] ?? 0,
      missedFrames: sorted.filter((f) => f > 1.5 * quantile(sorted, 0.5)).length,
      p50DrawMs: quantile(draws, 0.5),
      p95DrawMs: quantile(draws, 0.95),
      maxDrawMs: draws[draws.length - 1] ?? 0,
      fetches: fetches.length,
      p95FetchMs: quantile([...fetches].sort((a, b) => a - b), 0.95),
      jsHeapMb: await jsHeapMb(page),
      rendererPssMb: memory.renderer,
      browserPssMb: memory.total,
    };
  } finally {
    await browser.close();
  }
}

/** What the frame recorder keeps on the page's global object. */
interface PageGlobals {
  __frames: number[];
  __recording: boolean;
  /** The browser's own requestAnimationFrame (the page's is timed). */
  __raf(cb: (now: number) => void): number;
}

/** Zooms in and out with the wheel and pans by dragging, recording every frame's duration. */
async function interact(page: Page): Promise<number[]> {
  const box = (await page.locator("canvas.lanes-canvas").boundingBox())!;
  const cx = box.x + box.width / 2;
  const cy = box.y + Math.min(box.height / 2, 200);
  await page.evaluate(() => {
    const w = globalThis as unknown as PageGlobals;
    w.__frames = [];
    w.__recording = true;
    let last = performance.now();
    const tick = (now: number) => {
      w.__frames.push(now - last);
      last = now;
      if (w.__recording) w.__raf(tick);
    };
    w.__raf(tick);
  });
  await page.mouse.move(cx, cy);
  for (let i = 0; i < 40; i++) {
    await page.mouse.wheel(0, -120);
    await page.waitForTimeout(16);
  }
  for (let sweep = 0; sweep < 4; sweep++) {
    await page.mouse.move(cx, cy);
    await page.mouse.down();
    for (let s = 1; s <= 30; s++) {
      await page.mouse.move(cx + (sweep % 2 ? -1 : 1) * s * 12, cy);
      await page.waitForTimeout(16);
    }
    await page.mouse.up();
  }
  for (let i = 0; i < 40; i++) {
    await page.mouse.wheel(0, 120);
    await page.waitForTimeout(16);
  }
  const frames = await page.evaluate(() => {
    const w = globalThis as unknown as PageGlobals;
    w.__recording = false;
    return w.__frames.slice(1);
  });
  return frames;
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}

/** Durations of the page's window requests so far (resource timing). */
function windowFetches(page: Page): Promise<number[]> {
  return page.evaluate(() => {
    const perf = (globalThis as unknown as { performance: { getEntriesByType(t: string): { name: string; duration: number }[] } }).performance;
    return perf
      .getEntriesByType("resource")
      .filter((e) => /\/api\/incidents\/[^/]+\/events\?/.test(e.name))
      .map((e) => e.duration);
  });
}

async function jsHeapMb(page: Page): Promise<number> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Performance.enable");
  const { metrics } = (await cdp.send("Performance.getMetrics")) as { metrics: { name: string; value: number }[] };
  return (metrics.find((m) => m.name === "JSHeapUsedSize")?.value ?? 0) / 2 ** 20;
}

/**
 * Proportional set size (shared pages shared out, not counted twice) of the
 * Chromium processes below this one, which launched the browser: the
 * renderers, and all of them.
 */
function chromiumPssMb(): { renderer: number; total: number } {
  let total = 0;
  let renderer = 0;
  for (const pid of descendants(process.pid)) {
    if (pid === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8");
      if (!cmdline.includes("chromium")) continue;
      const m = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"));
      const kb = m ? Number(m[1]) : 0;
      total += kb;
      if (cmdline.includes("--type=renderer")) renderer += kb;
    } catch {
      // the process ended meanwhile
    }
  }
  return { renderer: renderer / 1024, total: total / 1024 };
}

function descendants(root: number): number[] {
  const out = [root];
  for (let i = 0; i < out.length; i++) {
    try {
      const children = readFileSync(`/proc/${out[i]}/task/${out[i]}/children`, "utf8").trim();
      if (children) out.push(...children.split(/\s+/).map(Number));
    } catch {
      // gone
    }
  }
  return out;
}
