// Builds incident bundles on disk for the ingest tests, in the real formats
// of the reference (docs/protocol.md §1–§3, DESIGN.md probe and
// dump records), and reads back what the store holds.

import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import * as tar from "tar-stream";
import { openIncident, type IncidentDb } from "../../store/db.js";
import { iterateEvents } from "../../store/read/events.js";
import { listSources } from "../../store/read/sources.js";
import { scratchDir } from "../scratchDir.js";

export function tempDir(prefix: string): string {
  return scratchDir(`kvrewind-${prefix}-`);
}

/** Writes `files` (relative path → content) under `root`. */
export function writeTree(root: string, files: Record<string, string | Buffer>): string {
  for (const [rel, content] of Object.entries(files)) {
    const p = join(root, rel);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, content);
  }
  return root;
}

/** `[YYYY-MM-DD HH:MM:SS.mmm` for epoch microseconds (SGLANG_LOG_MS prefix, §1). */
export function logStamp(us: number): string {
  const iso = new Date(Math.floor(us / 1000)).toISOString();
  return `[${iso.slice(0, 10)} ${iso.slice(11, 23)}`;
}

/** Epoch seconds with six decimals, as the probe writes `ts`. */
export function probeTs(us: number): string {
  return `${Math.floor(us / 1e6)}.${String(us % 1e6).padStart(6, "0")}`;
}

export interface EventRow {
  seq: number;
  ts_us: number;
  source: string;
  line: number;
  host: string | null;
  role: string | null;
  tp: number | null;
  kind: string;
  room: string | null;
  text: string;
}

/** Every event with its source path and text (the text read from the store's text blocks). */
export function eventRows(db: IncidentDb): EventRow[] {
  const paths = new Map(listSources(db).map((s) => [s.id, s.path]));
  return [...iterateEvents(db)].map((e) => ({
    seq: e.seq, ts_us: e.tsUs, source: paths.get(e.sourceId)!, line: e.line, host: e.host, role: e.role, tp: e.tp, kind: e.kind, room: e.room, text: e.text,
  }));
}

export function withDb<T>(path: string, f: (db: IncidentDb) => T): T {
  const db = openIncident(path);
  try {
    return f(db);
  } finally {
    db.close();
  }
}

export const T0 = Date.UTC(2026, 7, 20, 10, 15, 32) * 1000;
export const ROOMS = ["8972542885242963296", "5830149913321004417", "1234567890123456789", "7777777777777777777"];

/**
 * A PD incident on two hosts whose clocks disagree: d0's clock reads
 * `skewUs` behind p0's. Per room (true times from T0 + k * 100 ms): decode
 * sends its metadata (d0 log), prefill takes it 2 ms later (p0 log), sends
 * the KV with its notif 10 ms in, decode receives the notif 2 ms after that
 * (d0 probe).
 */
export function skewedBundle(root: string, skewUs: number): string {
  const d = (trueUs: number): number => trueUs - skewUs;
  const decodeLog: string[] = [];
  const prefillLog: string[] = [];
  const probe: string[] = [];
  ROOMS.forEach((room, k) => {
    const t = T0 + k * 100_000;
    decodeLog.push(`${logStamp(d(t))} DP0 TP0] Sending to prefill server with bootstrap room ${room} is_dummy=False`);
    prefillLog.push(`${logStamp(t + 2000)} TP0] got info room=${room} agent_name='d0-tp0' required_dst_info_num=1`);
    prefillLog.push(`${logStamp(t + 10_000)} TP0] sending kvcache to d0-tp0 with notif ${room}_kv_0_1_0`);
    probe.push(`{"ts": ${probeTs(d(t + 12_000))}, "host": "d0", "role": "decode", "tp": 0, "ev": "kv.notify", "room": ${room}, "tag": "${room}_kv_0_1_0"}`);
  });
  return writeTree(root, {
    "d0/decode-tp0.log": decodeLog.join("\n") + "\n",
    "p0/prefill-tp0.log": prefillLog.join("\n") + "\n",
    "d0/probe.jsonl": probe.join("\n") + "\n",
  });
}

/** A tar archive (tar-stream) of `files`, as a Buffer. */
export async function tarOf(files: Record<string, string | Buffer>): Promise<Buffer> {
  const pack = tar.pack();
  for (const [name, content] of Object.entries(files)) pack.entry({ name }, content);
  pack.finalize();
  const parts: Buffer[] = [];
  for await (const chunk of pack) parts.push(chunk as Buffer);
  return Buffer.concat(parts);
}

// A Flight Recorder JSON dump of one rank, as torch writes it (docs/hicache-indexk.md §5.1):
// two completed all_reduces and a broadcast that never completed.
export const FR_DUMP = `{
  "version": "2.9",
  "pg_config": {"0": {"name": "0", "desc": "default_pg", "ranks": "[0, 1, 2, 3]"}},
  "pg_status": {"0": {"last_enqueued_collective": 3, "last_started_collective": 3, "last_completed_collective": 2}},
  "entries": [
    {
      "record_id": 40,
      "pg_id": 0,
      "process_group": ["0", "default_pg"],
      "collective_seq_id": 1,
      "p2p_seq_id": 0,
      "op_id": 1,
      "profiling_name": "nccl:all_reduce",
      "time_created_ns": 1764421512100000001,
      "input_sizes": [[3, 4]],
      "input_dtypes": ["Float"],
      "output_sizes": [[3, 4]],
      "output_dtypes": ["Float"],
      "state": "completed",
      "time_discovered_started_ns": 1764421512100050000,
      "time_discovered_completed_ns": 1764421512100300999,
      "retired": true,
      "timeout_ms": 600000,
      "is_p2p": false,
      "frames": [{"name": "all_reduce", "filename": "parallel_state.py", "line": 512}]
    },
    {
      "record_id": 41,
      "pg_id": 0,
      "process_group": ["0", "default_pg"],
      "collective_seq_id": 2,
      "p2p_seq_id": 0,
      "op_id": 2,
      "profiling_name": "nccl:all_reduce",
      "time_created_ns": 1764421512200000000,
      "input_sizes": [[3, 4]],
      "input_dtypes": ["Float"],
      "output_sizes": [[3, 4]],
      "output_dtypes": ["Float"],
      "state": "completed",
      "time_discovered_started_ns": null,
      "time_discovered_completed_ns": 1764421512200400000,
      "retired": true,
      "timeout_ms": 600000,
      "is_p2p": false,
      "frames": []
    },
    {
      "record_id": 42,
      "pg_id": 0,
      "process_group": ["0", "default_pg"],
      "collective_seq_id": 3,
      "p2p_seq_id": 0,
      "op_id": 3,
      "profiling_name": "nccl:broadcast",
      "time_created_ns": 1764421512300000000,
      "input_sizes": [[1024]],
      "input_dtypes": ["Byte"],
      "output_sizes": [[1024]],
      "output_dtypes": ["Byte"],
      "state": "scheduled",
      "time_discovered_started_ns": null,
      "time_discovered_completed_ns": null,
      "retired": false,
      "timeout_ms": 600000,
      "is_p2p": false,
      "frames": []
    }
  ]
}
`;

/**
 * The traceback of NIXL prefill's bootstrap thread dying on a decode ABORT
 * frame (docs/protocol.md §7.1, v0.5.13–v0.5.15), as Python's thread
 * excepthook prints it: one line a string.
 */
export const BOOTSTRAP_DEATH: readonly string[] = [
  "Exception in thread Thread-3 (bootstrap_thread):",
  "Traceback (most recent call last):",
  '  File "/usr/lib/python3.12/threading.py", line 1075, in _bootstrap_inner',
  "    self.run()",
  '  File "/usr/lib/python3.12/threading.py", line 1012, in run',
  "    self._target(*self._args, **self._kwargs)",
  '  File "/sgl-workspace/sglang/python/sglang/srt/disaggregation/nixl/conn.py", line 1243, in bootstrap_thread',
  "    assert (",
  "           ^",
  "AssertionError: First message should be b'NixlMsgGuard'. Foreign traffic?",
];

/** `lines` decode batch lines of rank `tp`, one a second from T0 (§2.2). */
export function decodeBatchLog(lines: number, tp: number): string {
  return Array.from(
    { length: lines },
    (_, i) =>
      `${logStamp(T0 + i * 1000)} DP0 TP${tp}] Decode batch, #running-req: ${i}, #token: 181234, token usage: 0.43, pre-allocated usage: 0.06, #prealloc-req: 3, #transfer-req: 9, #retracted-req: 0, cuda graph: True, gen throughput (token/s): 3712.55, #queue-req: 0\n`,
  ).join("");
}

/** `lines` prefill bootstrap lines of rank `tp`, one room a second from T0 + 0.5 s (§3.1). */
export function bootstrappedPrefillLog(lines: number, tp: number): string {
  return Array.from({ length: lines }, (_, i) => `${logStamp(T0 + i * 1000 + 500)} TP${tp}] room=${8972542885242963296n + BigInt(i)} is bootstrapped\n`).join("");
}
