// Whole files: excerpts of a v0.5.14 NIXL mass-abort wedge (DESIGN.md case 2),
// read from disk, split the way the pipeline splits, parsed, and compared with
// expectations written by hand from the reference.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { LogKind } from "../../domain/kinds.js";
import { sglangLog } from "../../ingest/formats/sglangLog.js";
import { parseText, us } from "./sglangHarness.js";

// From dist/test/formats/ back to the sources' fixtures.
const FIXTURES = new URL("../../../test/formats/fixtures/", import.meta.url);

function read(name: string): string {
  return readFileSync(new URL(name, FIXTURES), "utf8").replace(/\n$/, "");
}

test("prefill tp3: the bootstrap thread dies on an ABORT frame and the bootstrap queue freezes at 58", () => {
  const text = read("nixl-v0.5.14-prefill-tp3.log");
  assert.equal(sglangLog.detect(text.slice(0, 4096)), true);
  const { events, issues } = parseText(text, { host: "prefill-0", role: "prefill" });
  assert.deepEqual(issues, []);
  assert.deepEqual(
    events.map((e) => [e.line, e.kind]),
    [
      [1, LogKind.message], // pynvml's FutureWarning and its source line, dated by line 3
      [3, LogKind.config],
      [4, LogKind.registerKvArgs],
      [5, LogKind.gotInfo],
      [6, LogKind.bootstrapped],
      [7, LogKind.prefillBatch],
      [8, LogKind.notifSent],
      [9, LogKind.notifSent],
      [10, LogKind.message], // "Received multipart ..." is not catalogued as an event
      [11, LogKind.exception],
      [21, LogKind.prefillBatch],
      [22, LogKind.prefillBatch],
      [23, LogKind.httpAccess],
    ],
  );
  const room = "8972542885242963296";
  assert.equal(events[0].tsUs, us("2026-06-20T14:02:10Z"));
  assert.deepEqual(events[1].attrs, { backend: "nixl", nixlBackend: "UCX", ep: 3 });
  assert.equal(events[3].room, room);
  assert.equal(events[6].room, room);
  assert.equal(events[6].chunk, 0);
  assert.equal(events[6].attrs?.isLast, true);
  assert.equal(events[6].attrs?.src, 3);
  assert.equal(events[7].attrs?.tagKind, "aux");
  const death = events[9];
  // No time of its own: halfway between its dated neighbours (14:05:30 and 14:05:31), marked inferred.
  assert.equal(death.tsUs, us("2026-06-20T14:05:30.5Z"));
  assert.equal(death.tsInferred, true);
  // What the file says of its time: written after the line before it and before the line after it.
  assert.deepEqual(death.attrs?.writtenBetweenUs, [us("2026-06-20T14:05:30Z"), us("2026-06-20T14:05:31Z")]);
  assert.equal(death.text.split("\n").length, 10);
  assert.equal(death.attrs?.thread, "bootstrap_thread");
  assert.equal(death.attrs?.excType, "AssertionError");
  assert.equal(death.attrs?.excMessage, "First message should be b'NixlMsgGuard'. Foreign traffic?");
  assert.equal(death.host, "prefill-0");
  assert.equal(death.role, "prefill");
  for (const ev of [events[10], events[11]]) {
    assert.equal(ev.attrs?.["#bootstrap-req"], 58);
    assert.equal(ev.attrs?.["#inflight-req"], 0);
    assert.equal(ev.dp, 3);
    assert.equal(ev.tp, 3);
    assert.equal(ev.attrs?.ep, 3);
  }
  assert.equal(events[11].tsUs - events[10].tsUs, 300_000_000);
  assert.equal(events[12].attrs?.path, "/health");
  assert.equal(events[12].attrs?.status, 200);
});

test("decode tp3: transfers stuck at 58, WaitingForInput timeout, abort sent to prefill", () => {
  const { events, issues } = parseText(read("nixl-v0.5.14-decode-tp3.log"), { host: "decode-0" });
  assert.deepEqual(issues, []);
  assert.deepEqual(
    events.map((e) => [e.kind, e.role, e.room ?? null]),
    [
      [LogKind.abortSent, "decode", "5830149913321004417"],
      [LogKind.abortRequest, "decode", null],
      [LogKind.decodeBatch, "decode", null],
      [LogKind.timeoutWarning, "decode", null],
      [LogKind.transferFailed, "decode", "8972542885242963297"],
      [LogKind.abortSent, "decode", "8972542885242963297"],
    ],
  );
  assert.equal(events[1].rid, "7d1c2b9a0e4f4a55b3c1");
  assert.equal(events[2].attrs?.["#transfer-req"], 58);
  assert.equal(events[4].tsUs, us("2026-06-20T14:10:31.441Z"));
  assert.equal(events[4].state, 0);
  assert.equal(events[4].attrs?.reasonKind, "timeout");
  assert.equal(events[4].attrs?.timeoutState, "WaitingForInput");
  assert.equal(events[4].attrs?.timeoutS, 300);
  assert.equal(events[5].attrs?.to, "10.0.3.17:17003");
});
