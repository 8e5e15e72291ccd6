// A log record that is one 8 MiB line: the event API sends its start and its
// length, not the whole line; the page shows the start and fetches the next
// slice on demand, and what it shows is the file's text, character for character.

import { test } from "node:test";
import assert from "node:assert/strict";
import { getJson, uploadFiles, waitForIncident } from "../ui/serverHarness.js";
import { openPage, screenshot, serverAndBrowser, timelineSettled, waitForCursor } from "./browserHarness.js";

const env = serverAndBrowser();

/** ui/server/excerpt.ts TEXT_EXCERPT, and the page's slice size. */
const EXCERPT = 16 * 1024;
const SLICE = 256 * 1024;

const body = Array.from({ length: (8 * 2 ** 20) / 16 }, (_, i) => `key${String(i).padStart(9, "0")}=v;`).join("");
const LONG = `[2026-08-20 10:15:33 DP0 TP0] dump: ${body}`;
const LOG = [
  "[2026-08-20 10:15:32 DP0 TP0] Prefill batch, #new-seq: 3, #new-token: 12288, #cached-token: 2048, token usage: 0.21, #running-req: 3, #queue-req: 5, #pending-token: 0, #bootstrap-req: 7, #inflight-req: 12, #optimistic-req: 0, cuda graph: False, input throughput (token/s): 48211.37",
  LONG,
].join("\n");

test("an 8 MiB line is sent as an excerpt with its length, and read on a slice at a time", async () => {
  const up = await uploadFiles(env.server, [{ name: "p0/prefill-tp0.log", content: `${LOG}\n` }], "?name=long-line");
  assert.equal(up.status, 202);
  assert.equal((await waitForIncident(env.server, "long-line"))["status"], "ready");
  const lanes = (await getJson(env.server, "/api/incidents/long-line/lanes")).body as { firstTsUs: number; lastTsUs: number };
  const window = (await getJson(env.server, `/api/incidents/long-line/events?from=${lanes.firstTsUs}&to=${lanes.lastTsUs + 1}`)).body as { seq: number[] };
  const answers = await Promise.all(window.seq.map((s) => getJson(env.server, `/api/incidents/long-line/events/${s}`)));
  const long = answers.find((a) => (a.body["textLength"] as number) === LONG.length);
  assert.ok(long, "the long line is one event, its full length known");
  assert.ok(long.text.length < 64 * 1024, `the event answer is ${long.text.length} bytes`);
  const event = long.body["event"] as { seq: number; text: string };
  assert.equal(event.text, LONG.slice(0, EXCERPT));
  const slice = (await getJson(env.server, `/api/incidents/long-line/events/${event.seq}/text?from=${EXCERPT}&length=100`)).body;
  assert.deepEqual(slice, { from: EXCERPT, text: LONG.slice(EXCERPT, EXCERPT + 100), textLength: LONG.length });

  const { page, errors } = await openPage(env.browser, `${env.server.url}?incident=long-line&sel=${event.seq}&cursor=${event.seq}`);
  await timelineSettled(page);
  await waitForCursor(page, event.seq, event.seq + 1);
  const raw = page.locator(".event-panel pre.raw");
  assert.equal(await raw.textContent(), LONG.slice(0, EXCERPT));
  assert.ok((await page.locator(".event-panel .raw-more").textContent())!.startsWith(`Showing 16,384 of ${LONG.length.toLocaleString("en-US")} characters`));
  await page.locator(".event-panel button.more-text").click();
  await page.locator(".event-panel .raw-more", { hasText: `Showing ${(EXCERPT + SLICE).toLocaleString("en-US")} of` }).waitFor();
  assert.equal(await raw.textContent(), LONG.slice(0, EXCERPT + SLICE));
  await screenshot(page, "long-line");
  assert.deepEqual(errors, []);
});
