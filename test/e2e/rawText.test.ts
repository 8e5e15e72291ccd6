// Log text is shown as text: a record carrying markup, opened from a link,
// appears verbatim in the event panel and in the finding-free page, and never
// becomes elements or runs.

import { test } from "node:test";
import assert from "node:assert/strict";
import { getJson, uploadFiles, waitForIncident } from "../ui/serverHarness.js";
import { openPage, serverAndBrowser, timelineSettled, waitForCursor } from "./browserHarness.js";

const env = serverAndBrowser();

const MARKUP = `[2026-08-20 10:15:33 DP0 TP0] <img src=x onerror="document.title='pwned'"><b>not bold</b><script>document.title='pwned'</script>`;
const LOG = [
  "[2026-08-20 10:15:32 DP0 TP0] Prefill batch, #new-seq: 3, #new-token: 12288, #cached-token: 2048, token usage: 0.21, #running-req: 3, #queue-req: 5, #pending-token: 0, #bootstrap-req: 7, #inflight-req: 12, #optimistic-req: 0, cuda graph: False, input throughput (token/s): 48211.37",
  MARKUP,
  "[2026-08-20 10:15:34 DP0 TP0] Prefill batch, #new-seq: 1, #new-token: 4096, #cached-token: 0, token usage: 0.22, #running-req: 4, #queue-req: 4, #pending-token: 0, #bootstrap-req: 6, #inflight-req: 12, #optimistic-req: 0, cuda graph: False, input throughput (token/s): 40100.00",
].join("\n");

test("a log line with markup is shown as text", async () => {
  const up = await uploadFiles(env.server, [{ name: "p0/prefill-tp0.log", content: `${LOG}\n` }], "?name=markup");
  assert.equal(up.status, 202);
  assert.equal((await waitForIncident(env.server, "markup"))["status"], "ready");
  const lanes = (await getJson(env.server, "/api/incidents/markup/lanes")).body as { firstTsUs: number; lastTsUs: number };
  const window = (await getJson(env.server, `/api/incidents/markup/events?from=${lanes.firstTsUs}&to=${lanes.lastTsUs + 1}`)).body as { seq: number[] };
  let seq = -1;
  for (const s of window.seq) {
    const { event } = (await getJson(env.server, `/api/incidents/markup/events/${s}`)).body as { event: { text: string } };
    if (event.text === MARKUP) seq = s;
  }
  assert.ok(seq >= 0, "the line with markup is an event of its own, text intact");

  const { page, errors } = await openPage(env.browser, `${env.server.url}?incident=markup&sel=${seq}&cursor=${seq}`);
  await timelineSettled(page);
  await waitForCursor(page, seq, seq + 1);
  const raw = page.locator(".event-panel pre.raw");
  assert.equal(await raw.textContent(), MARKUP);
  assert.equal(await raw.locator("*").count(), 0, "no element was made from the line");
  assert.equal(await page.locator("img, b, script:not([type=module])").count(), 0);
  assert.equal(await page.title(), "kvrewind");
  assert.deepEqual(errors, []);
});
