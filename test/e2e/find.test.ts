// Finding and filtering, in Chromium:
// - typing the start of a room in the omnibox lands on the room: its first
//   event selected, its events in the window, its row first in the state panel;
// - the state panel's room filters (text, the rooms of the selected finding,
//   the rooms not at Success), kept in the URL;
// - the overlap-desync bundle's collectives in rank order, the two ranks that
//   took on_idle marked and seq 69683 highlighted (fixtures/README.md);
// - the incident list: a folder dropped keeps its paths; re-analyze; delete.

import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { FIXTURES, getJson, waitForIncident } from "../ui/serverHarness.js";
import { openPage, screenshot, serverAndBrowser, stateSettled, timelineSettled, waitForCursor, waitForUrl, withFixtures } from "./browserHarness.js";

const WEDGE = "nixl-abort-wedge";
const DESYNC = "overlap-desync";
const env = serverAndBrowser(withFixtures(WEDGE, DESYNC));
const ROOM = "8449771539072680511";

test("typing the start of a room finds it, and Enter lands on it", async () => {
  const { page, errors } = await openPage(env.browser, `${env.server.url}?incident=${WEDGE}`);
  await timelineSettled(page);
  await page.keyboard.press("/");
  await page.keyboard.type(ROOM.slice(0, 9));
  const option = page.locator(".omnibox-option[data-section=Rooms]");
  await option.first().waitFor();
  assert.equal(await option.locator(".text").allTextContents().then((t) => t.join()), ROOM);
  await screenshot(page, "find-omnibox");
  await page.keyboard.press("Enter");
  const seq = await waitForCursor(page);
  await timelineSettled(page);
  const { event } = (await getJson(env.server, `/api/incidents/${WEDGE}/events/${seq}`)).body as { event: { room: string; tsUs: number } };
  assert.equal(event.room, ROOM, "the selected event is the room's");
  const flow = (await getJson(env.server, `/api/incidents/${WEDGE}/flow?room=${ROOM}`)).body as { events: { tsUs: number }[] };
  const from = Number(await page.locator(".timeline").getAttribute("data-from"));
  const to = Number(await page.locator(".timeline").getAttribute("data-to"));
  for (const e of flow.events) assert.ok(e.tsUs >= from && e.tsUs <= to, "the room's events are in the window");
  assert.equal(await page.locator(".state-panel details.rooms tbody tr.focus td:first-child").textContent(), ROOM);
  assert.deepEqual(errors, []);
});

test("the state panel's rooms filter by text, by the finding, and to those not at Success, in the URL", async () => {
  const { page, errors } = await openPage(env.browser, `${env.server.url}?incident=${WEDGE}`);
  await timelineSettled(page);
  const stall = page.locator(".findings li.finding", { has: page.locator(".group-count", { hasText: "×58" }) });
  await stall.locator(".finding-head").click();
  await waitForCursor(page);
  const rows = page.locator(".state-panel details.rooms tbody tr");
  const roomsShown = async () => (await rows.locator("td:first-child").allTextContents()).map((t) => /^\d+/.exec(t)?.[0] ?? t); // the room, without its inferred / assumed marks
  const all = await roomsShown();
  assert.ok(all.length > 58);

  await page.locator(".state-panel input.in-finding").check();
  await stateSettled(page);
  const groupRooms = await stall.locator(".group-rooms button.room").evaluateAll((els) => els.map((e) => e.getAttribute("data-room")!));
  const inFinding = await roomsShown();
  assert.ok(inFinding.length > 0 && inFinding.every((r) => groupRooms.includes(r)), "only the finding's rooms");

  await page.locator(".state-panel input.not-success").check();
  await stateSettled(page);
  for (const cells of await rows.evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll("[data-kvpoll]")].map((c) => c.getAttribute("data-kvpoll"))))) {
    assert.ok(cells.some((state) => state !== "Success"), `a side not at Success: ${cells.join("/")}`);
  }
  const notSuccess = await roomsShown();
  assert.ok(notSuccess.length > 0);
  await page.locator(".state-panel input.in-finding").uncheck();
  const text = notSuccess[0]!.slice(0, 7);
  await page.locator(".state-panel input.room-filter").fill(text);
  await stateSettled(page);
  const expected = all.filter((r) => r.includes(text));
  assert.ok((await roomsShown()).includes(notSuccess[0]!));
  assert.ok((await roomsShown()).every((r) => expected.includes(r)));
  await waitForUrl(page, `rooms=${text}`);
  await waitForUrl(page, "notSuccess=1");
  await screenshot(page, "find-state-filtered");
  await page.reload();
  await timelineSettled(page);
  await waitForCursor(page);
  await stateSettled(page);
  assert.equal(await page.locator(".state-panel input.room-filter").inputValue(), text);
  assert.ok((await roomsShown()).includes(notSuccess[0]!));
  assert.deepEqual(errors, []);
});

test("collectives in rank order, with the ranks that took on_idle and the first divergent seq marked", async () => {
  const { page, errors } = await openPage(env.browser, `${env.server.url}?incident=${DESYNC}`);
  await timelineSettled(page);
  await page.locator(".findings li.finding", { has: page.locator(".rule", { hasText: /^collective-divergence$/ }) }).locator(".finding-head").click();
  await waitForCursor(page);
  const table = page.locator(".state-panel details.collectives");
  const ranks = (await table.locator("tbody tr td:first-child").allTextContents()).filter((r) => r.startsWith("p0/prefill/"));
  assert.deepEqual(ranks, Array.from({ length: 8 }, (_, tp) => `p0/prefill/tp${tp}`), "p0's ranks in order");
  const divergent = await table.locator("tbody tr.divergent td:first-child").allTextContents();
  assert.deepEqual(divergent.filter((r) => r.startsWith("p0/")).sort(), ["p0/prefill/tp3", "p0/prefill/tp6"]);
  assert.deepEqual([...new Set(await table.locator(".first-divergent").allTextContents())], ["69683"]);
  assert.match((await table.locator(".divergence").first().textContent())!, /^p0\/prefill \S+: 2 ranks part ways at seq 69683 \(p0\/prefill\/tp3, p0\/prefill\/tp6\)/);
  await table.scrollIntoViewIfNeeded();
  await screenshot(page, "find-collectives");
  assert.deepEqual(errors, []);
});

test("a folder dropped on the list keeps its paths; an incident is analyzed again, then deleted", async () => {
  const { page, errors } = await openPage(env.browser, env.server.url);
  const box = (await page.locator(".dropzone").boundingBox())!;
  // A real folder dragged in from the desktop (CDP carries its path as the file manager would).
  const cdp = await page.context().newCDPSession(page);
  const data = { items: [], files: [join(FIXTURES, "healthy")], dragOperationsMask: 1 };
  for (const type of ["dragEnter", "dragOver", "drop"] as const) await cdp.send("Input.dispatchDragEvent", { type, x: box.x + 40, y: box.y + 20, data });
  const row = page.locator("tr.incident[data-id=healthy]");
  await row.locator("text=ready").waitFor();
  const { sources } = (await getJson(env.server, "/api/incidents/healthy/sources")).body as { sources: { path: string; host: string | null }[] };
  const decode = sources.find((s) => s.path === "healthy/d0/decode-tp0.log");
  assert.ok(decode, sources.map((s) => s.path).join(", "));
  assert.equal(decode.host, "d0");
  await screenshot(page, "list-with-actions");

  const again = page.waitForResponse((r) => r.url().endsWith("/api/incidents/healthy/reanalyze"));
  await row.locator("button.reanalyze").click();
  assert.equal((await again).status(), 202);
  assert.equal((await waitForIncident(env.server, "healthy"))["status"], "ready");
  page.once("dialog", (d) => void d.accept());
  await row.locator("button.delete").click();
  await row.waitFor({ state: "detached" });
  assert.equal((await getJson(env.server, "/api/incidents/healthy")).status, 404);
  assert.deepEqual(errors, []);
});
