// SGLang's PD schedulers, python/sglang/srt/disaggregation/decode.py and
// prefill.py (docs/protocol.md §3.4, §3.5): a request's handshake, bootstrap
// or transfer failing, with the reason after ` with exception `; metadata
// collisions; decode giving up on a prefill's bootstrap server; admission
// refusals for KV capacity. `{x=}` f-strings print rids as Python reprs
// (`req.rid='…'`) and rooms bare. Every rank logs a failure; a rank that only
// sees the MIN-reduced Failed logs at debug (§3.4 "Propagation muting").

import type { Role } from "../../../../domain/vocabulary.js";
import { LogKind } from "../../../../domain/kinds.js";
import { requestFailure } from "../refine.js";
import { cap, type LogTemplate, type TemplateComponent } from "../template.js";

const DECODE = "disaggregation/decode.py";
const PREFILL = "disaggregation/prefill.py";
const RID = `(?<rid>'[^']*'|"[^"]*"|None)`;
const HOLDER = `(?:(?:decode_req|prefill_req)\\.)?`;

/**
 * After `{Side} {what} failed for request rank={tp}`, by era:
 *   ` {decode_req.req.rid=} {decode_req.req.bootstrap_room=}` (decode; `prefill_req.` in early decode.py),
 *   ` {req.rid=} {req.bootstrap_room=}` (prefill), optionally ` {self.pp_rank=}`,
 *   or ` rid={rid} bootstrap_room={room}` with `: {detail}`; then an optional ` with exception {e}`.
 */
const FAILED_BODY =
  ` for request rank=(?<rank>\\d+) ` +
  `(?:${HOLDER}req\\.rid=${RID}(?: ${HOLDER}req\\.bootstrap_room=(?<room>\\d+|None))?(?: self\\.pp_rank=(?<pp>\\d+))?` +
  `|rid=(?<ridBare>\\S+) bootstrap_room=(?<roomBare>\\d+|None)(?:: (?<detail>.*?))?)` +
  `(?: with exception (?<exception>.*))?$`;

function requestFailed(head: string, kind: string, role: Role, level: string, format: string, source: string, samples: string[]): LogTemplate {
  return {
    id: `sglangDisaggregation.${head.toLowerCase().replace(/ /g, "_")}`,
    level,
    format,
    source,
    checked: "✔",
    head,
    pattern: new RegExp(head + FAILED_BODY, "ys"),
    kind,
    role,
    state: 0,
    // `pp` is the line's own `self.pp_rank=` (the event's pp is its prefix's PP tag).
    attrs: { rank: cap("rank", "number"), pp: cap("pp", "number"), detail: cap("detail") },
    refine: requestFailure,
    truncated: "request failure line",
    samples,
  };
}

const templates: LogTemplate[] = [
  requestFailed(
    "Decode transfer failed",
    LogKind.transferFailed,
    "decode",
    "error (debug if propagated)",
    "Decode transfer failed for request rank={tp_rank} {decode_req.req.rid=} {decode_req.req.bootstrap_room=} + ` with exception {e}`; early copies print `{prefill_req.req.rid=} {prefill_req.req.bootstrap_room=}`, one copy `rid={rid} bootstrap_room={room}` (rid unquoted)",
    `${DECODE} DecodeTransferQueue.pop_transferred`,
    [
      "[2026-06-11 14:03:07 DP0 TP3] Decode transfer failed for request rank=3 decode_req.req.rid='a04107ccff5349bab42803eb77df5cd5' decode_req.req.bootstrap_room=6555093254675405189 with exception KVTransferError(bootstrap_room=6555093254675405189): Request 6555093254675405189 timed out after 300.0s in KVPoll.WaitingForInput",
      "[2025-05-02 09:12:44 TP1] Decode transfer failed for request rank=1 prefill_req.req.rid='63b1b22dad53465b92560ebdda56d075' prefill_req.req.bootstrap_room=6555093254675405189 with exception KVTransferError(bootstrap_room=6555093254675405189): Failed to get kvcache from prefill instance, it might be dead",
      "[2026-06-11 14:03:07 DP0 TP3] Decode transfer failed for request rank=3 rid=a04107ccff5349bab42803eb77df5cd5 bootstrap_room=6555093254675405189 with exception KVTransferError(bootstrap_room=6555093254675405189): Aborted by AbortReq.",
      "[2026-06-11 14:03:07 DP0 TP3] Decode transfer failed for request rank=3 decode_req.req.rid='a04107ccff5349bab42803eb77df5cd5' decode_req.req.bootstrap_room=6555093254675405189 with exception KVTransferError(bootstrap_room=6555093254675405189): Losing connection with prefill instance (bootstrap_addr: 10.0.3.17:8998)",
    ],
  ),
  requestFailed(
    "Decode handshake failed",
    LogKind.handshakeFailed,
    "decode",
    "error (debug if propagated)",
    "Decode handshake failed for request rank={tp_rank} {decode_req.req.rid=} {decode_req.req.bootstrap_room=} + ` with exception {e}`; one copy (`_handle_bootstrap_failure`) `rid={rid} bootstrap_room={room}: {error_msg}` → detail",
    `${DECODE} DecodePreallocQueue._update_handshake_waiters / _handle_bootstrap_failure`,
    [
      "[2026-06-11 14:03:07.554 TP3] Decode handshake failed for request rank=3 decode_req.req.rid='a04107ccff5349bab42803eb77df5cd5' decode_req.req.bootstrap_room=6555093254675405189 with exception KVTransferError(bootstrap_room=6555093254675405189): Lost connection with prefill instance (bootstrap_addr: 10.0.3.17:8998)",
      "[2026-06-11 14:03:07 DP0 TP3] Decode handshake failed for request rank=3 rid=a04107ccff5349bab42803eb77df5cd5 bootstrap_room=6555093254675405189: prefill bootstrap server unreachable",
    ],
  ),
  requestFailed(
    "Prefill bootstrap failed",
    LogKind.bootstrapFailed,
    "prefill",
    "error (debug if propagated; the reference's `warning` is not what the copies say)",
    "Prefill bootstrap failed for request rank={tp_rank} {req.rid=} {req.bootstrap_room=} + ` with exception {e}`",
    `${PREFILL} PrefillBootstrapQueue.pop_bootstrapped / handle_bootstrap_failure`,
    [
      "[2026-02-19 16:33:31 TP0] Prefill bootstrap failed for request rank=0 req.rid='a04107ccff5349bab42803eb77df5cd5' req.bootstrap_room=6555093254675405189 with exception KVTransferError(bootstrap_room=6555093254675405189): Request 6555093254675405189 timed out after 300.0s in KVPoll.Bootstrapping",
    ],
  ),
  requestFailed(
    "Prefill transfer failed",
    LogKind.transferFailed,
    "prefill",
    "warning (debug if propagated)",
    "Prefill transfer failed for request rank={tp_rank} {req.rid=} {req.bootstrap_room=} + ` with exception {e}`; one copy adds ` {self.pp_rank=}` → attrs.pp; a user's log shows the line with no room",
    `${PREFILL} process_disagg_prefill_inflight_queue / handle_inflight_transfer_failure`,
    [
      "[2026-07-21 08:04:41 TP7 EP7] Prefill transfer failed for request rank=7 req.rid='a04107ccff5349bab42803eb77df5cd5' req.bootstrap_room=6555093254675405189 with exception NIXL_ERR_REMOTE_DISCONNECT",
      "[2026-02-27 15:01:51 PP1 TP4] Prefill transfer failed for request rank=4 req.rid='a04107ccff5349bab42803eb77df5cd5' req.bootstrap_room=6555093254675405189 self.pp_rank=1 with exception KVTransferError(bootstrap_room=6555093254675405189): Decode instance could be dead, remote mooncake session 10.99.91.49:15295 is not alive",
    ],
  ),
  {
    id: "sglangDisaggregation.context_corruption",
    level: "error",
    format:
      "Context corruption detected: Request {rid} (bootstrap_room={expected_room}) received metadata from bootstrap_room={actual_room}. Metadata buffer index: {idx}. This indicates metadata buffer index collision.",
    source: `${DECODE} DecodeTransferQueue._commit_transfer_to_req`,
    checked: "✔",
    head: "Context corruption detected:",
    pattern:
      /Context corruption detected: Request (?<rid>\S+) \(bootstrap_room=(?<room>\d+|None)\) received metadata from bootstrap_room=(?<actualRoom>\d+|None)\. Metadata buffer index: (?<metadataBufferIndex>-?\d+)\./ys,
    kind: LogKind.contextCorruption,
    role: "decode",
    rid: cap("rid"),
    room: cap("room", "pyNone"),
    attrs: { actualRoom: cap("actualRoom"), metadataBufferIndex: cap("metadataBufferIndex", "number") },
    truncated: "context corruption line",
    samples: [
      "[2026-06-11 14:03:07 DP0 TP3] Context corruption detected: Request a04107ccff5349bab42803eb77df5cd5 (bootstrap_room=6555093254675405189) received metadata from bootstrap_room=5839938415251080346. Metadata buffer index: 17. This indicates metadata buffer index collision.",
    ],
  },
  {
    id: "sglangDisaggregation.metadata_not_ready",
    level: "error",
    format: "Metadata unexpectedly not ready after readiness gate: request {rid}, bootstrap_room={expected_room}, metadata_buffer_index={idx}",
    source: `${DECODE} DecodeTransferQueue._commit_transfer_to_req`,
    checked: "✔",
    head: "Metadata unexpectedly not ready",
    pattern: /Metadata unexpectedly not ready after readiness gate: request (?<rid>[^,]+), bootstrap_room=(?<room>\d+|None), metadata_buffer_index=(?<metadataBufferIndex>-?\d+)/ys,
    kind: LogKind.metadataNotReady,
    role: "decode",
    rid: cap("rid"),
    room: cap("room", "pyNone"),
    attrs: { metadataBufferIndex: cap("metadataBufferIndex", "number") },
    truncated: "metadata not ready line",
    samples: [
      "[2026-06-11 14:03:07 DP0 TP3] Metadata unexpectedly not ready after readiness gate: request a04107ccff5349bab42803eb77df5cd5, bootstrap_room=6555093254675405189, metadata_buffer_index=42",
    ],
  },
  {
    id: "sglangDisaggregation.parallel_info_gave_up",
    level: "error",
    format: "Could not fetch prefill parallel info from {bootstrap_addr} after {count} attempts (then every request of that address is aborted)",
    source: `${DECODE} DecodePreallocQueue._resolve_pending_reqs (≤ 15 tries)`,
    checked: "✔",
    head: "Could not fetch prefill parallel info",
    pattern: /Could not fetch prefill parallel info from (?<bootstrapAddr>\S+) after (?<attempts>\d+) attempts/ys,
    kind: LogKind.bootstrapFetchFailed,
    role: "decode",
    attrs: { what: "parallel_info", bootstrapAddr: cap("bootstrapAddr"), attempts: cap("attempts", "number"), failureClass: "other" },
    truncated: "bootstrap fetch failure line",
    samples: ["[2026-06-11 14:03:07 DP0 TP3] Could not fetch prefill parallel info from 10.0.3.17:8998 after 15 attempts"],
  },
  {
    id: "sglangDisaggregation.kv_capacity",
    level: "error",
    format:
      "Request {req.rid} exceeds the maximum number of tokens: {len(req.origin_input_ids)} > {self.max_total_num_tokens} (then abort 400; later decode copies count the re-prefill length)",
    source: `${PREFILL} and ${DECODE} _check_if_req_exceed_kv_capacity`,
    checked: "✔",
    head: "Request ",
    pattern: /Request (?<rid>\S+) exceeds the maximum number of tokens: (?<tokens>\d+) > (?<capacity>\d+)/ys,
    kind: LogKind.capacityRejected,
    rid: cap("rid"),
    attrs: { reason: "kv_capacity", tokens: cap("tokens", "number"), capacity: cap("capacity", "number") },
    samples: ["[2026-06-11 14:03:07 DP0 TP3] Request a04107ccff5349bab42803eb77df5cd5 exceeds the maximum number of tokens: 131073 > 131072"],
  },
  {
    id: "sglangDisaggregation.server_args",
    level: "info",
    format:
      "server_args=ServerArgs(…, disaggregation_mode='{null|prefill|decode}', …) — the settings a server logs as it starts (the analyzer reads them: analyzer/replay/logSigns.ts); a PD mode names the server's side, the role of the file's records where its path names none",
    source: "entrypoints/engine.py _launch_subprocesses (Engine.__init__ in older copies): `logger.info(f\"{server_args=}\")`, the dataclass's repr (server_args.py ServerArgs.disaggregation_mode) (index copies)",
    checked: "✔",
    head: "server_args=ServerArgs(",
    // A paste may cut the line before the mode; any server_args line is this template's.
    pattern: /server_args=ServerArgs\((?:.*?\bdisaggregation_mode='(?<mode>[a-z]+)')?/ys,
    kind: LogKind.message,
    // A PD mode is the record's role; the file's other records take it after the parse, as the role its content names
    // first, or their host's in a stream of several (ingest/sources/sourceIdentity.ts).
    refine: (ev, g) => {
      if (g.mode === undefined) return;
      ev.attrs = { disaggregationMode: g.mode };
      if (g.mode === "prefill" || g.mode === "decode") ev.role = g.mode;
    },
    samples: [
      "[2025-10-14 08:30:00] server_args=ServerArgs(model_path='deepseek-ai/DeepSeek-V3', tokenizer_path='deepseek-ai/DeepSeek-V3', tp_size=8, dp_size=1, disaggregation_mode='decode', disaggregation_transfer_backend='mooncake', disaggregation_bootstrap_port=8998)",
      "[2025-10-14 08:30:00] server_args=ServerArgs(model_path='Qwen/Qwen3-8B', tp_size=1, disaggregation_mode='null')",
    ],
  },
];

export const SGLANG_DISAGGREGATION: TemplateComponent = {
  name: "sglangDisaggregation",
  dialect: "sglang",
  title: "SGLang: PD schedulers (decode.py, prefill.py)",
  intro:
    "`python/sglang/srt/disaggregation/decode.py` and `prefill.py`: a request's handshake, bootstrap or transfer failing, with the [failure reason](#failure-reasons) after ` with exception ` (`attrs.reason`, `reasonKind`, …, `failureClass`); metadata collisions; decode giving up on a prefill's bootstrap server; admission refusals for KV capacity; the side a server's `server_args` line names. Every rank logs a failure; a rank that only sees the MIN-reduced Failed logs at debug (docs/protocol.md §3.4 \"Propagation muting\").",
  templates,
};
