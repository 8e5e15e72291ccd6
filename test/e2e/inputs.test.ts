// The incident page says what it was made of: every input with what became of
// it, and the shapes of the lines kvrewind kept but did not understand.

import { test } from "node:test";
import assert from "node:assert/strict";
import { uploadFiles, waitForIncident } from "../ui/serverHarness.js";
import { openPage, serverAndBrowser, timelineSettled } from "./browserHarness.js";

const env = serverAndBrowser();

const BATCH =
  "Decode batch, #running-req: 64, #token: 181234, token usage: 0.43, pre-allocated usage: 0.06, #prealloc-req: 3, " +
  "#transfer-req: 58, #retracted-req: 0, cuda graph: True, gen throughput (token/s): 3712.55, #queue-req: 0";

test("the Inputs section lists each file, what was skipped, and what was not understood by shape", async () => {
  const pod = [
    `2026-06-11T14:03:00.100000000Z stderr F [2026-06-11 14:03:00 DP0 TP0] ${BATCH}`,
    "2026-06-11T14:03:00.200000000Z stdout F gpu-decode-0:212:980 [0] NCCL INFO comm 0x5581d2a0 rank 0 nranks 2 cudaDev 0 busId 18000 - Init COMPLETE",
    "2026-06-11T14:03:00.300000000Z stdout F gpu-decode-0:213:981 [1] NCCL INFO comm 0x55e0c7b0 rank 1 nranks 2 cudaDev 1 busId 2a000 - Init COMPLETE",
    `2026-06-11T14:03:01.100000000Z stderr F [2026-06-11 14:03:01 DP0 TP0] ${BATCH}`,
  ].join("\n");
  const up = await uploadFiles(
    env.server,
    [
      { name: "d0/decode-0.log", content: `${pod}\n` },
      { name: "d0/empty.log", content: "" },
    ],
    "?name=inputs",
  );
  assert.equal(up.status, 202, JSON.stringify(up.body));
  assert.equal((await waitForIncident(env.server, "inputs"))["status"], "ready");

  const { page, errors } = await openPage(env.browser, `${env.server.url}?incident=inputs`);
  await timelineSettled(page);
  const panel = page.locator(".sources-panel");
  await panel.locator("summary").click();
  await page.locator(".sources .source").first().waitFor();
  const pod0 = page.locator(".source", { hasText: "decode-0.log" });
  assert.match((await pod0.locator(".figures").textContent())!, /sglang-log in cri · d0 decode · 4 lines · 4 events · 2 not understood/);
  const shapes = await pod0.locator(".shapes tr").allTextContents();
  assert.deepEqual(shapes, ["2comm # rank # nranks # cudaDev # busId # - Init COMPLETEline 2"]);
  const empty = page.locator(".source", { hasText: "empty.log" });
  assert.equal(await empty.locator(".status").textContent(), "skipped");
  assert.equal(await empty.locator(".reason").textContent(), "empty file");
  assert.deepEqual(errors, []);
});
