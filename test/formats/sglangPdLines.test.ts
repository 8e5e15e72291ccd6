// Scheduler-side PD lines (docs/protocol.md §3.1, §3.4) and the
// failure reasons after ` with exception ` (§3.5).

import { test } from "node:test";
import assert from "node:assert/strict";
import { LogKind } from "../../domain/kinds.js";
import { parseLines, parseOne, us } from "./sglangHarness.js";

const ROOM = "8972542885242963296";
const RID = "9f2c4c0e1b2a4f7d8e6a";
const TS = "[2026-08-20 10:20:01 DP0 TP3]";

test("decode transfer failure after the WaitingForInput timeout", () => {
  const ev = parseOne(
    `${TS} Decode transfer failed for request rank=3 decode_req.req.rid='${RID}' decode_req.req.bootstrap_room=${ROOM} ` +
      `with exception KVTransferError(bootstrap_room=${ROOM}): Request ${ROOM} timed out after 300.0s in KVPoll.WaitingForInput`,
  );
  assert.equal(ev.kind, LogKind.transferFailed);
  assert.equal(ev.role, "decode");
  assert.equal(ev.room, ROOM);
  assert.equal(typeof ev.room, "string");
  assert.equal(ev.rid, RID);
  assert.equal(ev.state, 0);
  assert.equal(ev.tp, 3);
  assert.equal(ev.tsUs, us("2026-08-20T10:20:01Z"));
  assert.deepEqual(ev.attrs, {
    rank: 3,
    reasonKind: "timeout",
    reason: `Request ${ROOM} timed out after 300.0s in KVPoll.WaitingForInput`,
    errorRoom: ROOM,
    timeoutState: "WaitingForInput",
    timeoutS: 300,
    failureClass: "timeout",
  });
});

test("prefill bootstrap failure after the Bootstrapping timeout (docs/hicache-indexk.md §3.7 with 600 s)", () => {
  const ev = parseOne(
    `[2026-08-20 10:20:01 TP5] Prefill bootstrap failed for request rank=5 req.rid='${RID}' req.bootstrap_room=${ROOM} ` +
      `with exception KVTransferError(bootstrap_room=${ROOM}): Request ${ROOM} timed out after 600.0s in KVPoll.Bootstrapping`,
  );
  assert.equal(ev.kind, LogKind.bootstrapFailed);
  assert.equal(ev.role, "prefill");
  assert.equal(ev.room, ROOM);
  assert.equal(ev.attrs?.rank, 5);
  assert.equal(ev.attrs?.reasonKind, "timeout");
  assert.equal(ev.attrs?.timeoutState, "Bootstrapping");
  assert.equal(ev.attrs?.timeoutS, 600);
});

test("prefill transfer failure aborted by the decode-side notification (NIXL v0.5.16+)", () => {
  const ev = parseOne(
    `${TS} Prefill transfer failed for request rank=3 req.rid='${RID}' req.bootstrap_room=${ROOM} ` +
      `with exception KVTransferError(bootstrap_room=${ROOM}): Aborted by decode-side abort notification.`,
  );
  assert.equal(ev.kind, LogKind.transferFailed);
  assert.equal(ev.role, "prefill");
  assert.equal(ev.attrs?.reasonKind, "abort");
  assert.equal(ev.attrs?.abortBy, "decode_notification");
  assert.equal(ev.attrs?.reason, "Aborted by decode-side abort notification.");
});

test("decode handshake failure with and without an exception", () => {
  const withReason = parseOne(
    `${TS} Decode handshake failed for request rank=3 decode_req.req.rid='${RID}' decode_req.req.bootstrap_room=${ROOM} ` +
      `with exception KVTransferError(bootstrap_room=${ROOM}): Aborted by AbortReq.`,
  );
  assert.equal(withReason.kind, LogKind.handshakeFailed);
  assert.equal(withReason.role, "decode");
  assert.equal(withReason.attrs?.reasonKind, "abort");
  assert.equal(withReason.attrs?.abortBy, "AbortReq");

  const bare = parseOne(`${TS} Decode handshake failed for request rank=3 decode_req.req.rid='${RID}' decode_req.req.bootstrap_room=${ROOM}`);
  assert.equal(bare.kind, LogKind.handshakeFailed);
  assert.equal(bare.room, ROOM);
  assert.equal(bare.state, 0);
  assert.deepEqual(bare.attrs, { rank: 3 });
});

test("every §3.5 reason kind is recognised", () => {
  const cases: Array<[string, Record<string, unknown>]> = [
    ["Lost connection with prefill instance (bootstrap_addr: 10.0.3.17:8998)", { reasonKind: "peer_loss", bootstrapAddr: "10.0.3.17:8998" }],
    [
      `Prefill server with bootstrap_addr: 10.0.3.17:8998 is healthy before, but now it is down. Request (bootstrap_room: ${ROOM}) has been marked as failed.`,
      { reasonKind: "peer_loss", bootstrapAddr: "10.0.3.17:8998" },
    ],
    ["Could not fetch bootstrap info for: prefill_dp_rank: 0 prefill_cp_rank: 0 target_tp_rank: 3 and target_pp_rank 0", { reasonKind: "bootstrap" }],
    ["Could not fetch prefill parallel info from bootstrap_addr: 10.0.3.17:8998", { reasonKind: "bootstrap" }],
    ["send_metadata to prefill 10.0.3.17:17003 failed", { reasonKind: "bootstrap" }],
    ["_register_kv_args to prefill 10.0.3.17:17003 failed", { reasonKind: "bootstrap" }],
    [`follow_bootstrap_room conflict: dispatched to dp_rank 1 but bootstrap_room ${ROOM} implies dp_rank 0. Check the router.`, { reasonKind: "bootstrap" }],
    ["Decode instance could be dead, remote mooncake session 10.0.4.2:15432 is not alive", { reasonKind: "mooncake_transfer" }],
    [`Failed to send kv chunk of ${ROOM} to 10.0.4.2:15432`, { reasonKind: "mooncake_transfer" }],
    [`Failed to send state components of ${ROOM} to 10.0.4.2:15432`, { reasonKind: "mooncake_transfer" }],
    ["Failed to get kvcache from prefill instance, it might be dead", { reasonKind: "mooncake_transfer" }],
    ["Failed due to an unknown reason from another rank", { reasonKind: "propagated" }],
    ["NIXL KVSender Exception", { reasonKind: "propagated" }],
    ["NIXL KVReceiver Exception", { reasonKind: "propagated" }],
    ["Something nobody catalogued", { reasonKind: "other" }],
  ];
  for (const [reason, expected] of cases) {
    const ev = parseOne(
      `${TS} Decode transfer failed for request rank=3 decode_req.req.rid='${RID}' decode_req.req.bootstrap_room=${ROOM} ` +
        `with exception KVTransferError(bootstrap_room=${ROOM}): ${reason}`,
    );
    for (const [k, v] of Object.entries(expected)) assert.equal(ev.attrs?.[k], v, `${reason}: ${k}`);
    assert.equal(ev.attrs?.reason, reason);
    assert.equal(ev.attrs?.errorRoom, ROOM);
  }
});

test("a raw NIXL worker exception (not wrapped in KVTransferError) is a nixl_error with its room", () => {
  const ev = parseOne(
    `${TS} Prefill transfer failed for request rank=3 req.rid='${RID}' req.bootstrap_room=${ROOM} ` +
      `with exception NIXL transfer encountered ERR room=${ROOM}`,
  );
  assert.equal(ev.attrs?.reasonKind, "nixl_error");
  assert.equal(ev.attrs?.errorRoom, ROOM);
  assert.equal(ev.attrs?.reason, `NIXL transfer encountered ERR room=${ROOM}`);
});

test("a rid whose repr uses double quotes", () => {
  const ev = parseOne(
    `${TS} Prefill bootstrap failed for request rank=0 req.rid="it's-${RID}" req.bootstrap_room=${ROOM} with exception ` +
      `KVTransferError(bootstrap_room=${ROOM}): Aborted by AbortReq.`,
  );
  assert.equal(ev.rid, `it's-${RID}`);
});

test("a truncated failure line is reported, and is still a failure by the head of its logger.error call", () => {
  const { events, issues } = parseLines([`${TS} Decode transfer failed for request rank=3 decode_req.req.rid='${RID}' decode_req.req.bootstr`]);
  assert.equal(events.length, 1);
  // Not read by its template (no room, no reason): a transfer's failure by its head (ingest/formats/templates/sglang/sglangHeads.ts).
  assert.equal(events[0].kind, LogKind.error);
  assert.equal(events[0].attrs?.failureClass, "transport");
  assert.equal(events[0].room, undefined);
  assert.equal(issues.length, 1);
  assert.equal(issues[0].line, 1);
  assert.match(issues[0].message, /request failure line/);
});

test("the two warning_once timeout hints", () => {
  const boot = parseOne(
    `${TS} Some requests timed out when bootstrapping, which means prefill instances fail to receive the KV indices from the decode ` +
      "instance of this request. If a greater mean TTFT is acceptable, you can 'export SGLANG_DISAGGREGATION_BOOTSTRAP_TIMEOUT=600' " +
      "(10 minutes) to relax the timeout condition. ",
  );
  assert.equal(boot.kind, LogKind.timeoutWarning);
  assert.equal(boot.role, "prefill");
  assert.deepEqual(boot.attrs, { phase: "bootstrap", timeoutState: "Bootstrapping" });

  const waiting = parseOne(
    `${TS} Some requests fail to receive KV Cache transfer done signal after bootstrapping. If a greater mean TTFT is acceptable, ` +
      "you can 'export SGLANG_DISAGGREGATION_WAITING_TIMEOUT=600' (10 minutes) to relax the timeout condition. ",
  );
  assert.equal(waiting.kind, LogKind.timeoutWarning);
  assert.equal(waiting.role, "decode");
  assert.deepEqual(waiting.attrs, { phase: "waiting", timeoutState: "WaitingForInput" });
});

test("context corruption: expected and actual room", () => {
  const other = "5830149913321004417";
  const ev = parseOne(
    `${TS} Context corruption detected: Request ${RID} (bootstrap_room=${ROOM}) received metadata from bootstrap_room=${other}. ` +
      "Metadata buffer index: 17. This indicates metadata buffer index collision.",
  );
  assert.equal(ev.kind, LogKind.contextCorruption);
  assert.equal(ev.role, "decode");
  assert.equal(ev.rid, RID);
  assert.equal(ev.room, ROOM);
  assert.deepEqual(ev.attrs, { actualRoom: other, metadataBufferIndex: 17 });
});

test("metadata not ready after the readiness gate", () => {
  const ev = parseOne(
    `${TS} Metadata unexpectedly not ready after readiness gate: request ${RID}, bootstrap_room=${ROOM}, metadata_buffer_index=42`,
  );
  assert.equal(ev.kind, LogKind.metadataNotReady);
  assert.equal(ev.rid, RID);
  assert.equal(ev.room, ROOM);
  assert.deepEqual(ev.attrs, { metadataBufferIndex: 42 });
});

test("lost connection with a prefill instance", () => {
  const ev = parseOne(`${TS} Lost connection with prefill instance (bootstrap_addr: 10.0.3.17:8998), 58 requests affected`);
  assert.equal(ev.kind, LogKind.nodeFailure);
  assert.equal(ev.role, "decode");
  assert.deepEqual(ev.attrs, { bootstrapAddr: "10.0.3.17:8998", affected: 58, failureClass: "transport" });
});

test("abort_request by queue, on both sides", () => {
  const cases: Array<[string, string, string | undefined]> = [
    [`Abort bootstrap queue request. req.rid='${RID}'`, "bootstrap queue", "prefill"],
    [`Abort inflight queue request. req.rid='${RID}'`, "inflight queue", "prefill"],
    [`Abort queued request. req.rid='${RID}'`, "queued", undefined],
    [`Abort running request. req.rid='${RID}'`, "running", undefined],
    [`Abort chunked prefill request. req.rid='${RID}'`, "chunked prefill", undefined],
    [`Abort prealloc queue request. decode_req.req.rid='${RID}'`, "prealloc queue", "decode"],
    [`Abort transfer queue request. decode_req.req.rid='${RID}'`, "transfer queue", "decode"],
  ];
  for (const [msg, queue, role] of cases) {
    const ev = parseOne(`${TS} ${msg}`);
    assert.equal(ev.kind, LogKind.abortRequest, msg);
    assert.equal(ev.rid, RID, msg);
    assert.equal(ev.role, role, msg);
    assert.deepEqual(ev.attrs, { queue }, msg);
  }
});

test("`Abort` and `Prefill` openings of other messages stay uninterpreted without an issue", () => {
  const { events, issues } = parseLines([`${TS} Abort all requests on shutdown`, `${TS} Prefill server is not ready yet`]);
  assert.deepEqual(
    events.map((e) => e.kind),
    [LogKind.message, LogKind.message],
  );
  assert.deepEqual(issues, []);
});
