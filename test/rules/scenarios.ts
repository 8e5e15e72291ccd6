// Small incidents in real log formats shared by the rule, analyze and CLI tests.

import type { IncidentDb } from "../../ingest/store/db.js";
import { buildIncident } from "./incidentBuilder.js";
import { abortSent, decodeBatch, decodeTimeout, gotInfo, lines, prefillBatch, prefix, sentMetadata } from "./logLines.js";

export const ABORTED = "8972542885242963296";
export const LATER = ["5830149913321", "7140283925190346112"];

// Python's default thread excepthook output (§3.3: no SGLang prefix), after
// the NIXL GUARD assertion of §7.1.
export const THREAD_DEATH = [
  "Exception in thread Thread-3 (bootstrap_thread):",
  "Traceback (most recent call last):",
  '  File "/usr/lib/python3.12/threading.py", line 1075, in _bootstrap_inner',
  "    self.run()",
  '  File "/sgl-workspace/sglang/python/sglang/srt/disaggregation/nixl/conn.py", line 1423, in bootstrap_thread',
  "    assert (",
  "AssertionError: First message should be b'NixlMsgGuard'. Foreign traffic?",
];

/** NIXL prefill whose bootstrap thread dies on an ABORT; two later rooms time out on decode. */
export function wedgedByAbort(): IncidentDb {
  const prefill = lines(
    `${prefix(0, "TP0")} NIXL KVManager initialized with backend: UCX`,
    gotInfo(5, 0, ABORTED),
    gotInfo(40, 0, "1111"),
    THREAD_DEATH,
  );
  const decode = lines(
    sentMetadata(4, 0, ABORTED),
    abortSent(39, 0, ABORTED),
    sentMetadata(41, 0, LATER[0]!),
    sentMetadata(42, 0, LATER[1]!),
    decodeTimeout(341, 0, "a1", LATER[0]!),
    decodeTimeout(342, 0, "a2", LATER[1]!),
  );
  return buildIncident([
    { path: "p0/prefill-tp0.log", text: prefill, host: "p0", role: "prefill" },
    { path: "d0/decode-tp0.log", text: decode, host: "d0", role: "decode" },
  ]);
}

/** A calm PD run: queues move, every room bootstraps, nothing fails. */
export function healthyRun(): IncidentDb {
  const rooms = ["5830149913321", "7140283925190346112", "8972542885242963296"];
  const prefill = lines(
    `${prefix(0, "TP0")} NIXL KVManager initialized with backend: UCX`,
    rooms.map((r, i) => gotInfo(2 + i, 0, r)),
    prefillBatchLines(),
  );
  const decode = lines(rooms.map((r, i) => sentMetadata(1 + i, 0, r)), decodeBatchLines());
  return buildIncident([
    { path: "p0/prefill-tp0.log", text: prefill, host: "p0", role: "prefill" },
    { path: "d0/decode-tp0.log", text: decode, host: "d0", role: "decode" },
  ]);
}

function prefillBatchLines(): string[] {
  return [4, 2, 5, 0, 1, 3, 0].map((n, i) => prefillBatch(10 + i * 20, n));
}

function decodeBatchLines(): string[] {
  return [3, 1, 0, 2, 4, 0, 1].map((n, i) => decodeBatch(12 + i * 20, n));
}
