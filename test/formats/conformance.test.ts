// The conformance table (docs/log-templates.md): the fields kvrewind must make
// of real lines of every template SGLang, Mooncake, NIXL and UCX print. Each
// row names a template of the table and one of its sample lines (the table
// says where it was read); every template has a row. SGLang rows go through
// the real sglang-log parser; C++ rows go through parseEngineMessage at the
// offset where their message starts in the whole line, and whole, through the
// same log parser as a line of a rank's file.

import { test } from "node:test";
import assert from "node:assert/strict";
import type { ParsedEvent } from "../../domain/event.js";
import { LogKind } from "../../domain/kinds.js";
import { parseEngineMessage } from "../../ingest/formats/messages/engineMessage.js";
import { MOONCAKE_ROWS, NCCL_ROWS, NIXL_ROWS, PRINTED_ROWS, TORCH_ROWS, UCX_ROWS } from "./conformance/engines.js";
import { rowLine, type EngineConformanceRow, type Expected, type SglangConformanceRow } from "./conformance/row.js";
import { messageStart } from "../../ingest/formats/templates/check.js";
import { TEMPLATES } from "../../ingest/formats/templates/index.js";
import { DEEPEP_ROWS, DEEPEP_TEST_ROWS, DEEPEP_V2_TEST_ROWS } from "./conformance/deepep.js";
import { NCCL_TEST_ROWS } from "./conformance/ncclTests.js";
import { KERNEL_ROWS } from "./conformance/kernel.js";
import { RAY_ROWS } from "./conformance/ray.js";
import { SLURM_ROWS } from "./conformance/slurm.js";
import { KUBELET_ROWS } from "./conformance/kubelet.js";
import { SUPERVISORD_ROWS } from "./conformance/supervisord.js";
import { SYSTEMD_ROWS } from "./conformance/systemd.js";
import { OPEN_MPI_ROWS } from "./conformance/openMpi.js";
import { GDB_ROWS } from "./conformance/gdb.js";
import { LIGHTLLM_SERVER_ROWS } from "./conformance/lightllmServer.js";
import { VLLM_STATS_ROWS } from "./conformance/vllmStats.js";
import { HYDRA_ROWS, VERL_ROWS } from "./conformance/trainers.js";
import { TORCH_ELASTIC_ROWS } from "./conformance/torchElastic.js";
import { LMCACHE_ROWS } from "./conformance/lmcache.js";
import { SGLANG_PD_ROWS } from "./conformance/sglangPd.js";
import { SGLANG_BOOTSTRAP_ROWS, SGLANG_SCHEDULER_ROWS } from "./conformance/sglangScheduler.js";
import { SGLANG_TRANSFER_ROWS } from "./conformance/sglangTransfer.js";
import { parseLines } from "./sglangHarness.js";

const SGLANG_ROWS: SglangConformanceRow[] = [...SGLANG_PD_ROWS, ...SGLANG_TRANSFER_ROWS, ...SGLANG_BOOTSTRAP_ROWS, ...SGLANG_SCHEDULER_ROWS, ...LMCACHE_ROWS];
const ENGINE_ROWS: EngineConformanceRow[] = [...MOONCAKE_ROWS, ...NIXL_ROWS, ...UCX_ROWS];
const ALL_ROWS = [...SGLANG_ROWS, ...ENGINE_ROWS, ...TORCH_ROWS, ...NCCL_ROWS, ...PRINTED_ROWS, ...DEEPEP_ROWS, ...DEEPEP_TEST_ROWS, ...DEEPEP_V2_TEST_ROWS, ...NCCL_TEST_ROWS, ...KERNEL_ROWS, ...SLURM_ROWS, ...OPEN_MPI_ROWS, ...GDB_ROWS, ...LIGHTLLM_SERVER_ROWS, ...VLLM_STATS_ROWS, ...HYDRA_ROWS, ...VERL_ROWS, ...TORCH_ELASTIC_ROWS, ...RAY_ROWS, ...SYSTEMD_ROWS, ...SUPERVISORD_ROWS, ...KUBELET_ROWS];

function check(ev: ParsedEvent, expect: Expected, label: string): void {
  assert.equal(ev.kind, expect.kind, `${label}: kind`);
  for (const key of ["role", "room", "rid", "state", "dp", "pp", "tp", "chunk"] as const) {
    if (expect[key] !== undefined) assert.equal(ev[key], expect[key], `${label}: ${key}`);
  }
  for (const [key, value] of Object.entries(expect.attrs ?? {})) {
    assert.deepEqual(ev.attrs?.[key], value, `${label}: attrs.${key}`);
  }
}

function blankEvent(text: string): ParsedEvent {
  return { tsUs: 0, line: 1, kind: LogKind.unparsed, text };
}

test("every row uses 19-digit rooms and 32-hex rids", () => {
  for (const row of ALL_ROWS) {
    if (row.expect.room !== undefined) assert.match(row.expect.room, /^\d{19}$/, row.template);
    if (row.expect.rid !== undefined) assert.match(row.expect.rid, /^[0-9a-f]{32}$/, row.template);
  }
});

test("every template has a row, and a row names a sample of its template once", () => {
  assert.deepEqual(TEMPLATES.filter((t) => !ALL_ROWS.some((r) => r.template === t.id)).map((t) => t.id), []);
  const keys = ALL_ROWS.map((r) => `${r.template}#${r.sample ?? 0}`);
  assert.deepEqual(keys.filter((k, i) => keys.indexOf(k) !== i), []);
  for (const row of ALL_ROWS) assert.ok(rowLine(row).length > 0);
});

for (const row of SGLANG_ROWS) {
  test(`SGLang: ${row.template} #${row.sample ?? 0}`, () => {
    const { events, issues } = parseLines([rowLine(row), ...(row.more ?? [])]);
    assert.deepEqual(issues, [], row.template);
    assert.equal(events.length, 1, `${row.template}: one event`);
    check(events[0], row.expect, row.template);
    assert.equal(typeof (events[0].room ?? ""), "string");
  });
}

for (const row of ENGINE_ROWS) {
  test(`engine: ${row.template} #${row.sample ?? 0}`, () => {
    const line = rowLine(row);
    const at = messageStart("engine", line);
    const ev = blankEvent(line);
    assert.equal(parseEngineMessage(line, at, ev), true, row.template);
    check(ev, row.expect, row.template);
    assert.equal(ev.room, undefined, `${row.template}: C++ lines name no room`);
    assert.equal(ev.role, undefined, `${row.template}: C++ lines name no side`);
  });
}

// A C++ line in a rank's file, after an SGLang line that gives the year glog and absl stamps lack.
const DATED = "[2026-06-11 14:03:00 TP3] Decode batch, #running-req: 1, #token: 512, token usage: 0.01, gen throughput (token/s): 12.50, #queue-req: 0";

/** A row's line after `DATED`, through the log parser: its event, checked against the row, with the line as its text. */
function throughLogParser(row: EngineConformanceRow): ParsedEvent {
  const line = rowLine(row);
  const { events, issues } = parseLines([DATED, line]);
  assert.deepEqual(issues, [], row.template);
  assert.equal(events.length, 2, `${row.template}: two events`);
  check(events[1], row.expect, row.template);
  assert.equal(events[1].text, line);
  return events[1];
}

for (const row of ENGINE_ROWS) {
  test(`engine, whole line through the log parser: ${row.template} #${row.sample ?? 0}`, () => {
    // glog and absl lines carry a time of day, UCX lines a unix time: none is inferred.
    assert.notEqual(throughLogParser(row).tsInferred, true, `${row.template}: its own time`);
  });
}

// vLLM's stat lines under vLLM's logger prefix, whose month and day take their year from the dated line before.
for (const row of VLLM_STATS_ROWS) {
  test(`vLLM, whole line through the log parser: ${row.template} #${row.sample ?? 0}`, () => {
    throughLogParser(row);
  });
}

// NCCL's lines through the log parser after a dated SGLang line: their prefix carries no time of its own.
for (const row of NCCL_ROWS) {
  test(`NCCL, whole line through the log parser: ${row.template} #${row.sample ?? 0}`, () => {
    throughLogParser(row);
  });
}

for (const row of [...PRINTED_ROWS, ...DEEPEP_ROWS, ...DEEPEP_TEST_ROWS, ...OPEN_MPI_ROWS, ...GDB_ROWS, ...LIGHTLLM_SERVER_ROWS, ...HYDRA_ROWS, ...VERL_ROWS, ...TORCH_ELASTIC_ROWS]) {
  test(`printed without a prefix: ${row.template} #${row.sample ?? 0}`, () => {
    const { events, issues } = parseLines([DATED, rowLine(row)]);
    assert.deepEqual(issues, [], row.template);
    assert.equal(events.length, 2, `${row.template}: two events`);
    check(events[1], row.expect, row.template);
  });
}

// The V2 DeepEP test's indented bandwidth lines and nccl-tests' summary (the oldest opens with a space), each alone:
// a block of them opens a record per line.
for (const row of [...DEEPEP_V2_TEST_ROWS, ...NCCL_TEST_ROWS]) {
  test(`printed alone, indented: ${row.template} #${row.sample ?? 0}`, () => {
    const { events, issues } = parseLines([rowLine(row)]);
    assert.deepEqual(issues, [], row.template);
    assert.equal(events.length, 1, `${row.template}: one event`);
    check(events[0], row.expect, row.template);
  });
}

// The kernel's lines as `dmesg` prints them: the record is the machine's, with no rank, whatever file holds it.
for (const row of KERNEL_ROWS) {
  test(`kernel, whole line through the log parser: ${row.template} #${row.sample ?? 0}`, () => {
    const ev = throughLogParser(row);
    assert.equal(ev.tp, undefined, `${row.template}: no rank`);
  });
}

// Slurm's lines as srun and slurmstepd write them into a job's output: no rank of the server's, whatever file holds them.
for (const row of SLURM_ROWS) {
  test(`Slurm, whole line through the log parser: ${row.template} #${row.sample ?? 0}`, () => {
    const ev = throughLogParser(row);
    assert.equal(ev.tp, undefined, `${row.template}: no rank`);
  });
}

// Ray's lines as a driver prints them, behind the raylet's tag: the machine's, no rank of the server's.
for (const row of RAY_ROWS) {
  test(`Ray, whole line through the log parser: ${row.template} #${row.sample ?? 0}`, () => {
    const ev = throughLogParser(row);
    assert.equal(ev.tp, undefined, `${row.template}: no rank`);
  });
}

// systemd's lines in a unit's journal (journalctl's default short output): the journal names the machine; no rank.
for (const row of SYSTEMD_ROWS) {
  test(`systemd, whole line in its journal through the log parser: ${row.template} #${row.sample ?? 0}`, () => {
    const line = `Jun 11 14:07:11 gpu-node-3 systemd[1]: ${rowLine(row)}`;
    const { events, issues } = parseLines([line], { wrapper: "journald" });
    assert.deepEqual(issues, [], row.template);
    assert.equal(events.length, 1, `${row.template}: one event`);
    check(events[0], row.expect, row.template);
    assert.deepEqual([events[0].host, events[0].tp], ["gpu-node-3", undefined]);
  });
}

// supervisord's lines in its log (`%(asctime)s %(levelname)s %(message)s`, the level INFO whatever happened): no rank.
for (const row of SUPERVISORD_ROWS) {
  test(`supervisord, whole line in its log through the log parser: ${row.template} #${row.sample ?? 0}`, () => {
    const { events, issues } = parseLines([`2026-06-11 14:07:11,445 INFO ${rowLine(row)}`]);
    assert.deepEqual(issues, [], row.template);
    assert.equal(events.length, 1, `${row.template}: one event`);
    check(events[0], row.expect, row.template);
    assert.equal(events[0].tp, undefined);
  });
}

// The kubelet's event messages on lines of their own: warnings, as the Events table's reader makes them; no rank.
for (const row of KUBELET_ROWS) {
  test(`kubelet, its event's message alone through the log parser: ${row.template} #${row.sample ?? 0}`, () => {
    const { events, issues } = parseLines([rowLine(row)]);
    assert.deepEqual(issues, [], row.template);
    assert.equal(events.length, 1, `${row.template}: one event`);
    check(events[0], row.expect, row.template);
  });
}

// The watchdog's lines through the log parser after a dated SGLang line (the oldest c10 form has no time).
for (const row of TORCH_ROWS) {
  test(`torch c10d, whole line through the log parser: ${row.template} #${row.sample ?? 0}`, () => {
    throughLogParser(row);
  });
}

test("a line cut short after a template's opening words is kept uninterpreted and named in an issue", () => {
  // The last column: what the record is without its template, a failure where its logger call's head is an error's (templates/sglang/sglangHeads.ts).
  const cases: Array<[string, string, string]> = [
    [`[2026-06-11 14:03:07 TP3] Decode transfer failed for request rank=3 decode_req.req.rid='a04107cc`, "request failure line", LogKind.error],
    ["[2026-06-11 14:03:07 TP3] Revoking prefetch for request a04107ccff5349bab42803eb77df5cd5 due to", "HiCache prefetch revoke line", LogKind.message],
    ["[2026-06-11 14:03:07 TP3] Prefill register attempt 2/5 fail", "bootstrap registration attempt line", LogKind.message],
    ["[2026-06-11 14:03:07 TP3] Scheduler watchdog timeout (self.watchdog_timeout=30", "watchdog timeout line", LogKind.message],
  ];
  for (const [line, name, kind] of cases) {
    const { events, issues } = parseLines([line]);
    // SGLang's prefix was read (time, ranks); the message was not.
    assert.equal(events[0].kind, kind, line);
    assert.equal(issues.length, 1, line);
    assert.match(issues[0].message, new RegExp(name), line);
  }
});

test("lines that only share a template's first word stay uninterpreted without an issue; an error verdict is still a failure", () => {
  for (const [line, kind] of [
    ["[2026-06-11 14:03:07 TP3] Request a04107ccff5349bab42803eb77df5cd5 is being processed", LogKind.message],
    ["[2026-06-11 14:03:07 TP3] Failed to load tokenizer chat template, using the default", LogKind.message],
    ["[2026-06-11 14:03:07 TP3] Error in request handler", LogKind.error],
    ["[2026-06-11 14:03:07 TP3] Scheduler is ready", LogKind.message],
  ] as const) {
    const { events, issues } = parseLines([line]);
    assert.equal(events[0].kind, kind, line);
    assert.deepEqual(issues, [], line);
  }
});

test("engine messages: cut short is named, unrelated is false", () => {
  const named: Array<[string, string]> = [
    ["Worker: Process failed for slice (opcode: 1, source_addr: 0x7f2a40000000", "Mooncake slice failure line"],
    ["Failed to complete transfers after 30000", "Mooncake store transfer timeout line"],
    ["[Mooncake Cuda] Transfer timeout", "Mooncake CUDA batch line"],
    ["Transport retry count exceeded on mlx5_0 (synd 0x15", "UCX mlx5 completion error line"],
  ];
  for (const [msg, name] of named) assert.equal(parseEngineMessage(msg, 0, blankEvent(msg)), name, msg);
  for (const msg of ["Installing TCP transport", "getXferStatus: all good", "Topology discovery complete. Found 8 HCAs.", "Reject"]) {
    assert.equal(parseEngineMessage(msg, 0, blankEvent(msg)), false, msg);
  }
});

test("UCX messages are read with or without their component and level", () => {
  const msg = "UCX  ERROR Transport retry count exceeded on mlx5_2:1/IB (synd 0x15 vend 0x81 hw_synd 0/0)";
  const ev = blankEvent(msg);
  assert.equal(parseEngineMessage(msg, 0, ev), true);
  check(ev, { kind: LogKind.transportError, attrs: { engine: "ucx", localNic: "mlx5_2:1", linkLayer: "IB" } }, "UCX with level");
});
