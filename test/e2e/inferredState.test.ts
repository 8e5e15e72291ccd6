// Time travel inside a wedge shows what later lines imply: at a moment when
// the re-sent rooms were waiting in KVPoll.WaitingForInput (their timeout
// lines, 300 s later, say so), the state panel lists them marked "inferred",
// and the mark opens the line the inference rests on.

import { test } from "node:test";
import assert from "node:assert/strict";
import { fixtureTarGz, getJson, uploadFiles, waitForIncident } from "../ui/serverHarness.js";
import { openPage, screenshot, serverAndBrowser, timelineSettled, waitForCursor } from "./browserHarness.js";

const env = serverAndBrowser();
const ID = "nixl-abort-wedge";

interface StateAnswer {
  atSeq: number;
  state: { rooms: { room: string; inferred?: { seq: number; reason: string } }[] };
}

test("inside the wait, rooms a later timeout line implies are shown, marked inferred, linked to that line", async () => {
  const up = await uploadFiles(env.server, [{ name: `${ID}.tar.gz`, content: await fixtureTarGz(ID) }]);
  assert.equal(up.status, 202);
  assert.equal((await waitForIncident(env.server, ID))["status"], "ready");
  // 14:45, between the re-sent rooms' metadata (14:42:40) and their timeouts (14:47:40, fixtures/README.md).
  const at = Date.UTC(2026, 5, 23, 14, 45, 0) * 1000;
  const state = (await getJson(env.server, `/api/incidents/${ID}/state?ts=${at}`)).body as unknown as StateAnswer;
  const inferred = state.state.rooms.filter((r) => r.inferred);
  assert.ok(inferred.length >= 58, `${inferred.length} inferred rooms`);
  assert.match(inferred[0]!.inferred!.reason, /WaitingForInput/, JSON.stringify(inferred[0]));

  const { page, errors } = await openPage(env.browser, `${env.server.url}?incident=${ID}&sel=${state.atSeq}&cursor=${state.atSeq}`);
  await timelineSettled(page);
  await waitForCursor(page, state.atSeq, state.atSeq + 1);
  const marks = page.locator(".state-panel .rooms button.cause.inferred");
  await marks.first().waitFor();
  assert.ok((await marks.count()) >= 58, "the waiting rooms are listed, marked inferred");
  await screenshot(page, "inferred-waiting-rooms");
  const line = Number(await marks.first().getAttribute("data-seq"));
  await marks.first().click();
  await waitForCursor(page, line, line + 1);
  assert.match((await page.locator(".event-panel pre.raw").textContent())!, /timed out after 300\.0s in KVPoll\.WaitingForInput/);
  assert.deepEqual(errors, []);
});
