// DeepEP's kernel timeout reports (deepseek-ai/DeepEP): a kernel that waited
// past its cycle budget for a peer's signal prints one line with the device's
// `printf` (no logger, no level, no time) and then traps, or in the
// low-latency kernels with elastic masking on, masks the peer. Each line is
// a collective (the expert-parallel dispatch, combine or barrier) stalled on
// that rank waiting for a peer: `coll.watchdog` with `backend: deepep`, as
// torch's watchdog reports an NCCL collective that timed out (torchC10d.ts).
// Read in the whole history of the repository's main line (`git grep` per
// commit, from ebfe47e of 2025-02-25 through v1.2.1 to the EPv2 tree of 2026-04); the host's
// exceptions after a trap (`DeepEP error: timeout (dispatch CPU)`, EPException's
// `Failed: CUDA error …`) are Python exceptions, read as every traceback is.

import type { ParsedEvent } from "../../../../domain/event.js";
import { LogKind } from "../../../../domain/kinds.js";
import { cap, type Groups, type LogTemplate, type TemplateComponent } from "../template.js";

const COLLECTIVE = { backend: "deepep", report: "timeout" } as const;

const FIRST_WORD = /^\w+/;

/** The operation a stage belongs to: its first word (`dispatch receivers`, `combine receive`, `barrier`). */
function opOfStage(ev: ParsedEvent, g: Groups): void {
  ev.attrs!.op = FIRST_WORD.exec(g.stage!)![0];
}

/** The EP rank of an internode line: the RDMA rank's node times NUM_MAX_NVL_PEERS (8, csrc/kernels/configs.cuh) plus the NVL rank. */
function internodeRank(ev: ParsedEvent, g: Groups): void {
  ev.attrs!.rank = Number(g.rdma) * 8 + Number(g.nvl);
}

const templates: LogTemplate[] = [
  {
    id: "deepep.intranode_timeout",
    level: "stdout",
    format:
      "DeepEP timeout for dispatch senders, rank {rank}, responsible_channel = {channel} / `DeepEP timeout for dispatch receivers, rank {rank}, responsible_channel = {channel}, tokens remained: {n}`" +
      " / `DeepEP timeout for combine senders, rank {rank}, responsible_channel = {channel}` / `DeepEP timeout for combine receivers, rank {rank}, responsible_channel = {channel}, expect = {head}`" +
      " — a sender waited for free queue slots, a receiver for tokens, on the NVLink channel; then `trap()`",
    source: "csrc/kernels/intranode.cu dispatch / combine (csrc/kernels/legacy/intranode.cu:347, :461, :804, :929 in the EPv2 tree)",
    versions: "ebfe47e (2025-02-25) +",
    checked: "✔",
    head: "DeepEP timeout for ",
    pattern: /DeepEP timeout for (?<stage>(?:dispatch|combine) (?:senders|receivers)), rank (?<rank>\d+), responsible_channel = (?<channel>\d+)(?:, tokens remained: (?<remaining>-?\d+)|, expect = (?<expect>-?\d+))?/y,
    kind: LogKind.watchdog,
    attrs: { ...COLLECTIVE, kernel: "intranode", stage: cap("stage"), rank: cap("rank", "number"), channel: cap("channel", "number") },
    refine: opOfStage,
    samples: [
      "DeepEP timeout for dispatch receivers, rank 3, responsible_channel = 5, tokens remained: 12",
      "DeepEP timeout for combine senders, rank 0, responsible_channel = 11",
    ],
  },
  {
    id: "deepep.internode_dispatch_timeout",
    level: "stdout",
    format:
      "DeepEP dispatch RDMA sender timeout, channel: {c}, RDMA: {rdma}, nvl: {nvl}, dst RDMA lane: {lane}, head: {h}, tail: {t} (from bc118b2, 2025-06-24)" +
      " / `DeepEP RDMA sender coordinator timeout, channel: {c}, IB: {rdma}, nvl {nvl}, dst IB: {ib}, tail: {t}, remaining: {n}` (from bc118b2; `tail {t}, num_tokens_to_send {n}` from 9fe9021, 2025-05-28)" +
      " / `DeepEP dispatch forwarder timeout (RDMA meta|NVL check|RDMA check), channel: {c}, RDMA: {rdma}, nvl: {nvl}, …`" +
      " / `DeepEP dispatch NVL receiver timeout, channel: {c}, RDMA: {rdma}, nvl: {nvl}, src RDMA: {r}, src nvl: {n}, start: {s}, end: {e}` and `…, src NVL: {n}, head: {h}, tail: {t}`" +
      " — one role of the internode dispatch waited for its peer (RDMA: the node's rank, nvl: the GPU's on it); then `trap()`",
    source: "csrc/kernels/internode.cu dispatch (csrc/kernels/legacy/internode.cu:654, :785, :884, :924, :949, :1087, :1117 in the EPv2 tree)",
    versions: "ebfe47e (2025-02-25) +",
    checked: "✔",
    head: "DeepEP ",
    pattern:
      /DeepEP (?<stage>dispatch (?:RDMA sender|forwarder|NVL receiver)|RDMA sender coordinator) timeout(?: \((?<check>RDMA meta|NVL check|RDMA check)\))?, channel: (?<channel>\d+), (?:RDMA|IB): (?<rdma>\d+), nvl:? (?<nvl>\d+)/y,
    kind: LogKind.watchdog,
    attrs: { ...COLLECTIVE, kernel: "internode", op: "dispatch", stage: cap("stage"), check: cap("check"), channel: cap("channel", "number"), rdmaRank: cap("rdma", "number"), nvlRank: cap("nvl", "number") },
    refine: internodeRank,
    samples: [
      // deepseek-ai/DeepEP#137: test_internode.py on two H20 nodes over RoCE.
      "DeepEP dispatch NVL receiver timeout, channel: 0, RDMA: 1, nvl: 6, src RDMA: 0, src nvl: 7, start: 0, end: 0",
      "DeepEP dispatch forwarder timeout (RDMA meta), channel: 2, RDMA: 0, nvl: 3, src RDMA lane: 1, dst NVL: 4, meta: -1, -1, -1, -1",
      "DeepEP RDMA sender coordinator timeout, channel: 7, IB: 1, nvl 2, dst IB: 0, tail: 128, remaining: 64",
    ],
  },
  {
    id: "deepep.internode_combine_timeout",
    level: "stdout",
    format:
      "DeepEP combine NVL sender timeout, channel: {c}, RDMA: {rdma}, nvl: {nvl}, dst NVL: {n}, RDMA lane: {l}, head: {h}, tail: {t}, start: {s}, end: {e}" +
      " / `DeepEP combine forwarder (RDMA check) timeout, channel: {c}, RDMA: {rdma}, nvl: {nvl}, dst RDMA: {r}, head: {h}, tail: {t}, chunked: {n}`" +
      " / `DeepEP combine forwarder (NVL check) timeout, channel: {c}, RDMA: {rdma}, nvl: {nvl}, src NVL: {n}, dst RDMA: {r}, tail: {t}, waiting: {w}, total: {n}, sub: {s}, large: {l}, expected: {e}`" +
      " / `DeepEP combine RDMA receiver timeout, channel: {c}, RDMA: {rdma}, nvl: {nvl}, src RDMA: {r}, tail: {t}, waiting: {w}, expect: {e}`; then `trap()`",
    source: "csrc/kernels/internode.cu combine (csrc/kernels/legacy/internode.cu:1857, :2029, :2062, :2182 in the EPv2 tree)",
    versions: "ebfe47e (2025-02-25) +",
    checked: "✔",
    head: "DeepEP combine ",
    pattern:
      /DeepEP (?<stage>combine (?:NVL sender|forwarder \((?:RDMA|NVL) check\)|RDMA receiver)) timeout, channel: (?<channel>\d+), RDMA: (?<rdma>\d+), nvl: (?<nvl>\d+)/y,
    kind: LogKind.watchdog,
    attrs: { ...COLLECTIVE, kernel: "internode", op: "combine", stage: cap("stage"), channel: cap("channel", "number"), rdmaRank: cap("rdma", "number"), nvlRank: cap("nvl", "number") },
    refine: internodeRank,
    samples: [
      "DeepEP combine forwarder (NVL check) timeout, channel: 3, RDMA: 0, nvl: 5, src NVL: 2, dst RDMA: 1, tail: 40, waiting: 1, total: 8, sub: 0, large: 0, expected: 41",
      "DeepEP combine RDMA receiver timeout, channel: 9, RDMA: 1, nvl: 0, src RDMA: 0, tail: 17, waiting: 2, expect: 18",
    ],
  },
  {
    id: "deepep.low_latency_timeout",
    level: "stdout",
    format:
      "Warning: DeepEP timeout for barrier, rank {rank}, dst_rank {peer} / `Warning: DeepEP timeout for dispatch receive, rank {rank}, local_expert_idx {e}, src_rank {peer}` / `Warning: DeepEP timeout for combine receive, …`" +
      " — the low-latency kernels' waits on a peer; the peer is masked when the buffer has a mask (elastic EP), else `trap()`",
    source: "csrc/kernels/internode_ll.cu (csrc/kernels/legacy/internode_ll.cu:61, :398, :962 in the EPv2 tree)",
    versions: "c475ec6 (2025-09-25, #370) +",
    checked: "✔",
    head: "Warning: DeepEP timeout for ",
    pattern: /Warning: DeepEP timeout for (?<stage>barrier|dispatch receive|combine receive), rank (?<rank>\d+), (?:dst_rank (?<dst>\d+)|local_expert_idx (?<expert>\d+), src_rank (?<src>\d+))/y,
    kind: LogKind.watchdog,
    attrs: { ...COLLECTIVE, kernel: "low_latency", stage: cap("stage"), rank: cap("rank", "number"), localExpert: cap("expert", "number"), srcRank: cap("src", "number"), dstRank: cap("dst", "number") },
    refine: opOfStage,
    samples: ["Warning: DeepEP timeout for dispatch receive, rank 5, local_expert_idx 2, src_rank 12", "Warning: DeepEP timeout for barrier, rank 0, dst_rank 9"],
  },
  {
    id: "deepep.barrier_timeout",
    level: "stdout",
    format:
      "DeepEP timeout check failed: rank = {rank}, thread = {t}, value = {v}) (from c50f3d6, 2025-07-08; `rank = {rank}, thread = {t})` from 8da2d7b, 2025-06-10; `DeepEP timeout check failed: {tag} (rank = {rank})` from ebfe47e)" +
      " — barrier_block's wait for the NVLink peers' signals; then `trap()`",
    source: "csrc/kernels/utils.cuh barrier_block (csrc/kernels/legacy/utils.cuh:539 in the EPv2 tree)",
    versions: "ebfe47e (2025-02-25) +",
    checked: "✔",
    head: "DeepEP timeout check failed: ",
    pattern: /DeepEP timeout check failed: (?:rank = (?<rank>\d+), thread = (?<thread>\d+)(?:, value = -?\d+)?\)|(?<tag>-?\d+) \(rank = (?<tagRank>\d+)\))/y,
    kind: LogKind.watchdog,
    attrs: { ...COLLECTIVE, kernel: "barrier", op: "barrier", stage: "barrier", rank: cap("rank", "number"), thread: cap("thread", "number") },
    refine: (ev, g) => {
      if (g.tagRank !== undefined) ev.attrs!.rank = Number(g.tagRank);
    },
    samples: ["DeepEP timeout check failed: rank = 2, thread = 5, value = 1)", "DeepEP timeout check failed: 0 (rank = 3)"],
  },
  {
    id: "deepep.v2_barrier_timeout",
    level: "stdout",
    format:
      "DeepEP NVLink barrier timeout, tag: {tag}, nvl: {rank}, thread: {t}, status: {s}, signal: {s}, phase: {p}, target: {t}, counter: {n}" +
      " / `DeepEP Gin barrier timeout, tag: {tag}, scaleout: {r}, scaleup: {r}, thread: {t}, signal: {s}, target: {t}`",
    source: "deep_ep/include/deep_ep/common/comm.cuh:122, :174 (EPv2)",
    versions: "EPv2 (2026-04) +",
    checked: "✔",
    head: "DeepEP ",
    pattern: /DeepEP (?<stage>NVLink barrier|Gin barrier) timeout, tag: (?<tag>-?\d+), (?:nvl: (?<rank>\d+)|scaleout: (?<scaleout>\d+), scaleup: (?<scaleup>\d+))/y,
    kind: LogKind.watchdog,
    attrs: { ...COLLECTIVE, kernel: "elastic", op: "barrier", stage: cap("stage"), rank: cap("rank", "number"), scaleoutRank: cap("scaleout", "number"), scaleupRank: cap("scaleup", "number") },
    samples: ["DeepEP NVLink barrier timeout, tag: 1, nvl: 6, thread: 3, status: 0, signal: 2, phase: 1, target: 4, counter: 17"],
  },
  {
    id: "deepep.v2_dispatch_timeout",
    level: "stdout",
    format:
      "DeepEP notify (GPU reduction) timeout, rank: {rank}/{n}, … / `DeepEP notify timeout, rank: {rank}, thread: {t}, count: {n}`" +
      " / `DeepEP hybrid notify (GPU reduction|scale-out expert reduction|scale-out rank reduction|scale-up reduction) timeout, …` (the last printed without a space after the comma)" +
      " / `DeepEP hybrid dispatch (forwarding) timeout, scale-out: {r}, scale-up: {r}, channel: {c}, …`",
    source: "deep_ep/include/deep_ep/impls/dispatch.cuh:140, :198; hybrid_dispatch.cuh:164, :205, :292, :509 (EPv2)",
    versions: "EPv2 (2026-04) +",
    checked: "✔",
    head: "DeepEP ",
    pattern: /DeepEP (?<stage>(?:hybrid )?notify(?: \((?:GPU|scale-out (?:expert|rank)|scale-up) reduction\))?|hybrid dispatch \(forwarding\)) timeout,(?: ?rank: (?<rank>\d+))?/y,
    kind: LogKind.watchdog,
    attrs: { ...COLLECTIVE, kernel: "elastic", op: "dispatch", stage: cap("stage"), rank: cap("rank", "number") },
    samples: ["DeepEP notify timeout, rank: 4, thread: 9, count: 3", "DeepEP hybrid notify (scale-up reduction) timeout,scale-out: 0/2, scale-up: 3/8, thread: 1, status: 0 | 5, expected: 8"],
  },
  {
    id: "deepep.v2_combine_timeout",
    level: "stdout",
    format:
      "DeepEP combine (scale-up wait) timeout, scale-out: {r}/{n}, scale-up: {r}/{n}, channel: {c}, lane: {l}, recv: {n}, tail: {t} (wait={w})" +
      " / `DeepEP combine (scale-out wait all) timeout, scale-out: {r}/{n}, scale-up: {r}/{n}, channel: {c}, lane: {l}, signal: {s}, expected: {e}`",
    source: "deep_ep/include/deep_ep/impls/hybrid_combine.cuh:436, :611 (EPv2)",
    versions: "EPv2 (2026-04) +",
    checked: "✔",
    head: "DeepEP combine (",
    pattern: /DeepEP (?<stage>combine \((?:scale-up wait|scale-out wait all)\)) timeout, scale-out: (?<scaleout>\d+)\/\d+, scale-up: (?<scaleup>\d+)\/\d+, channel: (?<channel>\d+)/y,
    kind: LogKind.watchdog,
    attrs: { ...COLLECTIVE, kernel: "elastic", op: "combine", stage: cap("stage"), channel: cap("channel", "number"), scaleoutRank: cap("scaleout", "number"), scaleupRank: cap("scaleup", "number") },
    samples: ["DeepEP combine (scale-out wait all) timeout, scale-out: 1/2, scale-up: 4/8, channel: 6, lane: 0, signal: 3, expected: 4"],
  },
  {
    id: "deepep.v2_pp_timeout",
    level: "stdout",
    format: "DeepEP PP send timeout, recv buffer is full (printed without a newline) / `DeepEP PP recv timeout, recv buffer is empty` — pipeline-parallel send and receive",
    source: "deep_ep/include/deep_ep/impls/pp_send_recv.cuh:148, :199 (EPv2)",
    versions: "EPv2 (2026-04) +",
    checked: "✔",
    head: "DeepEP PP ",
    pattern: /DeepEP (?<stage>PP (?:send|recv)) timeout, recv buffer is (?:full|empty)/y,
    kind: LogKind.watchdog,
    attrs: { ...COLLECTIVE, kernel: "elastic", op: "pp", stage: cap("stage") },
    samples: ["DeepEP PP recv timeout, recv buffer is empty"],
  },
];

export const DEEPEP: TemplateComponent = {
  name: "deepep",
  dialect: "engine",
  title: "DeepEP",
  intro:
    "`deepseek-ai/DeepEP`: the lines its kernels print with the device's `printf` when a wait for a peer runs past its cycle budget, on a line of their own (no logger, no level, no time; a device `printf` reaches stdout when the kernel ends, so its place among timed lines is not its time). Each is a stalled expert-parallel collective on that rank. Event: `coll.watchdog` (`backend: deepep`, `report: timeout`, `op`, `stage`: the kernel role that waited, and the ranks and channel it names; `rank` is the EP rank, from the RDMA and NVL ranks on the internode lines).",
  templates,
};
