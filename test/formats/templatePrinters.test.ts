// The fixture generator prints the lines the template table reads
// (fixtures/generator/lines/): every printer's line is claimed by the template
// it imitates, so a generated incident cannot drift from what the parser reads.

import { test } from "node:test";
import assert from "node:assert/strict";
import { accessLine } from "../../fixtures/generator/lines/stderr.js";
import { decodeBatchLine, prefillBatchLine } from "../../fixtures/generator/lines/batch.js";
import { abortRequestLine, Common, decodeFailed, kvTransferError, Mooncake, Nixl, prefillFailed, Reason, WAITING_TIMEOUT_WARNING } from "../../fixtures/generator/lines/pd.js";
import { SGLANG_TEMPLATES } from "../../ingest/formats/templates/index.js";

const ROOM = "6555093254675405189";
const RID = "a04107ccff5349bab42803eb77df5cd5";
const PEER = "def7d2f1-d482-4cd2-b6de-f238da5a9c70";

const PREFILL_STATS = {
  newSeq: 1,
  newToken: 64,
  cachedToken: 0,
  tokenUsage: 0.01,
  runningReq: 1,
  queueReq: 0,
  pendingToken: 0,
  bootstrapReq: 0,
  inflightReq: 1,
  optimisticReq: 0,
  inputThroughput: 178.18,
};
const DECODE_STATS = { runningReq: 4, tokens: 512, tokenUsage: 0.01, preallocatedUsage: 0, preallocReq: 0, transferReq: 1, retractedReq: 0, genThroughput: 12.5, queueReq: 0 };

/** Each printer's line and the template that must claim it (null: a line no template reads). */
const PRINTED: Array<[string, string | null]> = [
  [prefillBatchLine("0.5.3", PREFILL_STATS), "sglangScheduler.prefill_batch"],
  [prefillBatchLine("0.5.16", PREFILL_STATS), "sglangScheduler.prefill_batch"],
  [decodeBatchLine(DECODE_STATS), "sglangScheduler.decode_batch"],
  [decodeFailed("transfer", 3, RID, ROOM, kvTransferError(ROOM, Reason.waitingTimeout(ROOM, 300))), "sglangDisaggregation.decode_transfer_failed"],
  [decodeFailed("handshake", 3, RID, ROOM, kvTransferError(ROOM, Reason.abortReq)), "sglangDisaggregation.decode_handshake_failed"],
  [prefillFailed("transfer", 3, RID, ROOM, kvTransferError(ROOM, Reason.decodeAbortNotification)), "sglangDisaggregation.prefill_transfer_failed"],
  [prefillFailed("bootstrap", 3, RID, ROOM, kvTransferError(ROOM, Reason.fromAnotherRank)), "sglangDisaggregation.prefill_bootstrap_failed"],
  [WAITING_TIMEOUT_WARNING, "sglangCommonConn.waiting_timeout_hint"],
  [abortRequestLine("bootstrap queue", RID), "sglangScheduler.abort_request"],
  [abortRequestLine("transfer queue", RID), "sglangScheduler.abort_request"],
  [Nixl.managerInit, "sglangNixl.kv_manager"],
  [Nixl.sending(PEER, `${ROOM}_kv_2_1_3`), "sglangNixl.notif_sent"],
  [Nixl.registered(PEER), "sglangNixl.register_kv_args"],
  [Nixl.gotInfo(ROOM, PEER, 1), "sglangNixl.got_info"],
  [Nixl.bootstrapped(ROOM), "sglangNixl.bootstrapped"],
  [Nixl.abortMarked(ROOM), "sglangMooncake.abort_received"],
  [Nixl.abortIgnored(ROOM), "sglangMooncake.abort_ignored"],
  [Nixl.sendingMetadata(ROOM), "sglangNixl.metadata_sent"],
  [Mooncake.registered("10.99.91.49:15295"), "sglangNixl.register_kv_args"],
  [Mooncake.abortAckSent(ROOM, "10.0.4.2", 17010), "sglangMooncake.ack_sent"],
  [Mooncake.abortAckReceived(ROOM), "sglangMooncake.ack_received"],
  [Mooncake.skipping(ROOM), "sglangMooncake.skip_chunk"],
  [Common.abortSent(ROOM, "10.0.3.17", 17003), "sglangCommonConn.abort_sent"],
  [Common.bindTo("10.0.3.17", 17003), null],
  [Common.registeredToBootstrap, null],
  [Common.bootstrapServerStarted("0.0.0.0", 8998), null],
  [accessLine("192.168.0.45:57586", "POST", "/generate", 200), "uvicorn.access"],
];

test("every generator printer's line is claimed by the template it imitates", () => {
  for (const [line, id] of PRINTED) assert.equal(SGLANG_TEMPLATES.templateOf(line, 0)?.id ?? null, id, line);
});
