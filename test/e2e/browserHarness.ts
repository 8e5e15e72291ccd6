// Debian's Chromium driven by playwright-core (no browser download), against a
// real server on an ephemeral port. Screenshots go to test-artifacts/.

import { mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { after, afterEach, before } from "node:test";
import { chromium, type Browser, type Page } from "playwright-core";
import { inShard, onShardEnd } from "../shardLifetime.js";
import { fixtureTarGz, startTestServer, uploadFiles, waitForIncident, type TestServer } from "../ui/serverHarness.js";

export const CHROMIUM = "/usr/bin/chromium";
export const ARTIFACTS = fileURLToPath(new URL("../../../test-artifacts/", import.meta.url));

/** draw.ts COLORS.witness */
export const WITNESS_RGB: [number, number, number] = [0xff, 0x5c, 0xcd];
/** draw.ts COLORS.flow */
export const FLOW_RGB: [number, number, number] = [0x7d, 0xcf, 0xff];

/**
 * A test server (started with `serverOptions`, then `setup` run) and a browser
 * for the tests of one file: started before them, closed after. In a shard of `npm test` the browser is the
 * shard's, started by its first browser file and closed after its last.
 */
export function serverAndBrowser(
  setup?: (server: TestServer) => Promise<void>,
  serverOptions?: () => Parameters<typeof startTestServer>[0],
): { server: TestServer; browser: Browser } {
  const held = {} as { server: TestServer; browser: Browser };
  before(async () => {
    held.server = await startTestServer(serverOptions?.());
    held.browser = await browserForFile();
    await setup?.(held.server);
  });
  afterEach(async () => {
    await TAB_POOLS.get(held.browser)?.takeBack();
  });
  after(async () => {
    if (!inShard()) await held.browser?.close();
    await held.server?.close();
  });
  return held;
}

async function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM });
}

let shardBrowser: Browser | undefined;

async function browserForFile(): Promise<Browser> {
  if (!inShard()) return withTabPool(await launchBrowser());
  if (!shardBrowser?.isConnected()) {
    const browser = await launchBrowser();
    onShardEnd(() => browser.close());
    shardBrowser = withTabPool(browser);
  }
  return shardBrowser;
}

const VIEWPORT = { width: 1600, height: 1000 };

/**
 * The tabs of one browser, each lent to one test and taken back when it ends,
 * to be lent again: Chromium spends more than twice the CPU on opening a new tab
 * as on loading the page in one already open (bench/RESULTS.md, "Test suite
 * time"). A tab comes back on about:blank with no cookies, so the next test
 * starts from a fresh document: no timers, requests or state of the last one.
 */
class TabPool {
  private readonly spare: Page[] = [];
  private readonly lent: Page[] = [];
  private readonly own: Page[] = [];

  constructor(private readonly browser: Browser) {}

  async lend(): Promise<Page> {
    const page = this.spare.pop() ?? (await newTab(this.browser));
    this.lent.push(page);
    return page;
  }

  /** A tab for this test alone, closed when it ends. */
  async ownTab(): Promise<Page> {
    const page = await newTab(this.browser);
    this.own.push(page);
    return page;
  }

  async takeBack(): Promise<void> {
    for (const page of this.own.splice(0)) await page.close();
    for (const page of this.lent.splice(0)) {
      if (page.isClosed()) continue;
      await page.goto("about:blank");
      page.removeAllListeners("pageerror").removeAllListeners("console");
      await page.unrouteAll();
      await page.context().clearCookies();
      if (page.viewportSize()?.width !== VIEWPORT.width || page.viewportSize()?.height !== VIEWPORT.height) await page.setViewportSize(VIEWPORT);
      this.spare.push(page);
    }
  }
}

/** The tab pools of the browsers started by serverAndBrowser. */
const TAB_POOLS = new WeakMap<Browser, TabPool>();

function withTabPool(browser: Browser): Browser {
  TAB_POOLS.set(browser, new TabPool(browser));
  return browser;
}

function newTab(browser: Browser): Promise<Page> {
  return browser.newPage({ viewport: VIEWPORT });
}

/**
 * A tab on `url`, with the page's errors and console errors gathered in `errors`.
 * Under serverAndBrowser the tab is lent for the test; `ownTab` gives a new one
 * closed when the test ends, for a test that sets up its tab for good (an init script).
 */
export async function openPage(browser: Browser, url: string, opts: { ownTab?: boolean } = {}): Promise<{ page: Page; errors: string[] }> {
  const pool = TAB_POOLS.get(browser);
  const page = !pool ? await newTab(browser) : opts.ownTab ? await pool.ownTab() : await pool.lend();
  const errors: string[] = [];
  page.on("pageerror", (err) => errors.push(err.message));
  page.on("console", (msg) => {
    if (msg.type() === "error") errors.push(msg.text());
  });
  await page.goto(url);
  return { page, errors };
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: `${ARTIFACTS}${name}.png` });
}

/** Waits until the timeline holds data for its current view and has drawn it. */
export async function timelineSettled(page: Page): Promise<void> {
  await page.waitForSelector(".timeline[data-loading=false]");
}


/** The page globals the in-page conditions read (the tests compile without the DOM library). */
interface PageGlobals {
  document: { querySelector(selector: string): { dataset: Record<string, string | undefined> } | null };
  location: { search: string };
}

/**
 * Waits until the cursor (state panel) and the selection (event panel) are on
 * the same event, one with `min <= seq < max`. The condition runs in the page
 * as a function: the page's CSP refuses string evaluation.
 */
/** Waits until the state panel shows the rooms its filter asked for (it is aria-busy while they are on their way). */
export async function stateSettled(page: Page): Promise<void> {
  await page.locator(".state-panel:not([aria-busy])").waitFor();
}

export async function waitForCursor(page: Page, min = 0, max = Number.MAX_SAFE_INTEGER): Promise<number> {
  const handle = await page.waitForFunction(
    ({ min, max }) => {
      const doc = (globalThis as unknown as PageGlobals).document;
      const cursor = doc.querySelector(".state-panel")?.dataset["seq"];
      const selected = doc.querySelector(".event-panel")?.dataset["seq"];
      const seq = Number(cursor);
      return cursor !== undefined && cursor === selected && seq >= min && seq < max ? seq : null;
    },
    { min, max },
  );
  return (await handle.jsonValue()) as number;
}

/** Waits until the address bar's query holds a text. */
export async function waitForUrl(page: Page, text: string): Promise<void> {
  await page.waitForFunction((t) => (globalThis as unknown as PageGlobals).location.search.includes(t), text);
}

/** The DOM parts the in-page canvas probe uses (the tests compile without the DOM library). */
interface PageDom {
  document: {
    querySelector(selector: string): {
      width: number;
      height: number;
      getBoundingClientRect(): { left: number; top: number; width: number };
      getContext(kind: "2d"): { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } };
    } | null;
  };
}

/** True when the timeline canvas shows a colour within `radius` pixels of a page point. */
export function canvasHasColourNear(page: Page, x: number, y: number, rgb: [number, number, number], radius = 7): Promise<boolean> {
  return page.evaluate(
    ({ x, y, rgb, radius }) => {
      const canvas = (globalThis as unknown as PageDom).document.querySelector("canvas.lanes-canvas")!;
      const box = canvas.getBoundingClientRect();
      const dpr = canvas.width / box.width;
      const img = canvas.getContext("2d").getImageData((x - box.left - radius) * dpr, (y - box.top - radius) * dpr, 2 * radius * dpr, 2 * radius * dpr);
      for (let i = 0; i < img.data.length; i += 4) {
        if (Math.abs(img.data[i]! - rgb[0]) < 8 && Math.abs(img.data[i + 1]! - rgb[1]) < 8 && Math.abs(img.data[i + 2]! - rgb[2]) < 8) return true;
      }
      return false;
    },
    { x, y, rgb, radius },
  );
}

/** Waits until the timeline canvas shows a colour somewhere (a frame is drawn after the data it needs arrives). */
export async function waitForCanvasColour(page: Page, rgb: [number, number, number]): Promise<void> {
  await page.waitForFunction((rgb) => {
    const canvas = (globalThis as unknown as PageDom).document.querySelector("canvas.lanes-canvas")!;
    const img = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height);
    for (let i = 0; i < img.data.length; i += 4) {
      if (Math.abs(img.data[i]! - rgb[0]) < 8 && Math.abs(img.data[i + 1]! - rgb[1]) < 8 && Math.abs(img.data[i + 2]! - rgb[2]) < 8) return true;
    }
    return false;
  }, rgb);
}

/** True when the timeline canvas shows a colour anywhere. */
export function canvasHasColour(page: Page, rgb: [number, number, number]): Promise<boolean> {
  return page.evaluate((rgb) => {
    const canvas = (globalThis as unknown as PageDom).document.querySelector("canvas.lanes-canvas")!;
    const img = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height);
    for (let i = 0; i < img.data.length; i += 4) {
      if (Math.abs(img.data[i]! - rgb[0]) < 8 && Math.abs(img.data[i + 1]! - rgb[1]) < 8 && Math.abs(img.data[i + 2]! - rgb[2]) < 8) return true;
    }
    return false;
  }, rgb);
}

/** Uploads fixture bundles through the API and waits until each is ready. */
export function withFixtures(...ids: string[]): (server: TestServer) => Promise<void> {
  return async (server) => {
    for (const id of ids) {
      const up = await uploadFiles(server, [{ name: `${id}.tar.gz`, content: await fixtureTarGz(id) }]);
      if (up.status !== 202) throw new Error(`upload of ${id}: ${JSON.stringify(up.body)}`);
      const incident = await waitForIncident(server, id);
      if (incident["status"] !== "ready") throw new Error(`${id}: ${JSON.stringify(incident)}`);
    }
  };
}
