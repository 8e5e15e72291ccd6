// DeepEP's test programs (deepseek-ai/DeepEP tests/test_intranode.py,
// test_internode.py): what an operator runs to check a node's or a cluster's
// expert-parallel kernels before serving on them, and pastes beside a server's
// logs. Rank 0 prints each step with `print` (no logger, no level, no time):
// the configuration, the layout kernel's time, each functional case and the
// word ` passed` once its checks held (a case that failed is cut before it, the
// assertion's traceback after), and the tuning sweep's bandwidths. All of it is
// the test's information: `log.message` at info. The V2 (elastic) test,
// tests/elastic/test_ep.py, prints each rank's bandwidth of each operation
// with `dist_print` the same way, and the low-latency test, tests/test_low_latency.py,
// each rank's figures with `print`: information too.

import { LogKind } from "../../../../domain/kinds.js";
import { cap, type LogTemplate, type TemplateComponent } from "../template.js";

const SOURCE = "tests/test_internode.py test_main (deepseek-ai/DeepEP 058d696b); tests/test_intranode.py prints the same words without num_topk_groups and RDMA chunks";

/** The V2 test's bandwidth lines open with three spaces, one of `*-#@+` and ` EP: `, the rank right-aligned in three columns. */
const ELASTIC_PERF_HEAD = /^ *[*\-#@+] EP: /;
// sgl-kernel-npu's port of the tests to Ascend NPUs (sgl-project/sgl-kernel-npu f425bdf1, tests/python/deepep) keeps
// the `[tuning] ` word but prints each phase's bandwidth over HCCS (Huawei's on-node link), RDMA's between nodes, and
// the kernel's mean time; its low-latency cases end with an average of their per-rank figures.
const NPU_TUNING_SOURCE =
  "tests/python/deepep/test_internode.py test_main (and test_internode_a2.py: `Dispatch (BF16) … (HCCS), … (RDMA), avg_t, notify_t`, `Combine … (HCCS), … (RDMA), avg_t`), test_intranode.py (`Dispatch (BF16)`, `Dispatch ({quant mode}, raw_bytes=…GB)`, `Combine`, HCCS only), test_normal_alltoall.py (`Dispatch (quant_type='…')`) — sgl-project/sgl-kernel-npu f425bdf1";
const NPU_AVERAGE_SOURCE = "tests/python/deepep/utils.py calculate_avg_stats (sgl-project/sgl-kernel-npu f425bdf1): one print, the Dispatch line ending in a space";

/**
 * The low-latency test's per-rank lines (tests/test_low_latency.py test_main): `[rank {rank}] ` then the end-to-end
 * bandwidth of a dispatch and combine, each phase's bandwidth under the profiler, or, with the receive hook, each
 * phase's send and receive times; each rank prints its own.
 */
const LOW_LATENCY_OPENINGS = ["Dispatch + combine bandwidth: ", "Dispatch bandwidth: ", "Dispatch send/recv time: "];
const LOW_LATENCY_RANK = /^\[rank \d+\] /;
const LOW_LATENCY_SOURCE =
  "tests/test_low_latency.py test_main (`print(f'[rank {rank}] Dispatch + combine bandwidth: {…:.2f} GB/s, ' f'avg_t={avg_t * 1e6:.2f} us, min_t={min_t * 1e6:.2f} us, max_t={max_t * 1e6:.2f} us', flush=True)`, then per bench_kineto pass `[rank {rank}] Dispatch bandwidth: {…:.2f} GB/s, avg_t={…:.2f} us | Combine bandwidth: …` or, with the receive hook, `[rank {rank}] Dispatch send/recv time: {…:.2f} + {…:.2f} us | Combine send/recv time: …`), and test_loop's `print(f'Allocating buffer size: {num_rdma_bytes / 1e6} MB ...', flush=True)` on local rank 0 (deepseek-ai/DeepEP, index copies)";

function isLowLatencyLine(line: string, at: number): boolean {
  const rank = LOW_LATENCY_RANK.exec(line.substring(at, at + 16));
  return rank !== null && LOW_LATENCY_OPENINGS.some((opening) => line.startsWith(opening, at + rank[0].length));
}

const templates: LogTemplate[] = [
  {
    id: "deepepTests.low_latency",
    level: "stdout",
    format:
      "[rank {rank}] Dispatch + combine bandwidth: {x:.2f} GB/s, avg_t={t:.2f} us, min_t={t:.2f} us, max_t={t:.2f} us / `[rank {rank}] Dispatch bandwidth: {x:.2f} GB/s, avg_t={t:.2f} us | Combine bandwidth: {y:.2f} GB/s, avg_t={t:.2f} us` / `[rank {rank}] Dispatch send/recv time: {s:.2f} + {r:.2f} us | Combine send/recv time: {s:.2f} + {r:.2f} us` — the low-latency test's figures, one line per rank",
    source: LOW_LATENCY_SOURCE,
    checked: "✔",
    head: isLowLatencyLine,
    firstChars: "[",
    pattern:
      /\[rank (?<rank>\d+)\] (?:Dispatch \+ combine bandwidth: (?<both>\d+\.\d+) GB\/s, avg_t=(?<us>\d+\.\d+) us|Dispatch bandwidth: (?<dispatch>\d+\.\d+) GB\/s, avg_t=\d+\.\d+ us \| Combine bandwidth: (?<combine>\d+\.\d+) GB\/s|Dispatch send\/recv time: \d+\.\d+ \+ \d+\.\d+ us \| Combine send\/recv time: )/y,
    kind: LogKind.message,
    attrs: {
      level: "info",
      test: "deepep",
      epRank: cap("rank", "number"),
      bandwidthGBps: cap("both", "number"),
      avgUs: cap("us", "number"),
      dispatchGBps: cap("dispatch", "number"),
      combineGBps: cap("combine", "number"),
    },
    samples: [
      "[rank 4] Dispatch + combine bandwidth: 193.41 GB/s, avg_t=114.00 us, min_t=111.01 us, max_t=117.50 us",
      "[rank 2] Dispatch bandwidth: 203.70 GB/s, avg_t=36.88 us | Combine bandwidth: 215.93 GB/s, avg_t=67.32 us",
      "[rank 0] Dispatch send/recv time: 29.51 + 4.62 us | Combine send/recv time: 38.17 + 6.84 us",
    ],
  },
  {
    id: "deepepTests.low_latency_buffer",
    level: "stdout",
    format: "Allocating buffer size: {mb} MB ... — the low-latency test's RDMA buffer, printed by local rank 0 before the test",
    source: LOW_LATENCY_SOURCE,
    checked: "✔",
    head: "Allocating buffer size: ",
    pattern: /Allocating buffer size: (?<mb>\d+(?:\.\d+)?) MB \.\.\./y,
    kind: LogKind.message,
    attrs: { level: "info", test: "deepep", bufferMB: cap("mb", "number") },
    samples: ["Allocating buffer size: 2115.111296 MB ..."],
  },
  {
    id: "deepepTests.config",
    level: "stdout",
    format: "[config] num_tokens={n}, hidden={h}, num_topk_groups={g}, num_topk={k} (intranode: no `num_topk_groups`)",
    source: SOURCE,
    checked: "✔",
    head: "[config] num_tokens=",
    pattern: /\[config\] num_tokens=(?<tokens>\d+), hidden=(?<hidden>\d+)(?:, num_topk_groups=\d+)?, num_topk=\d+/y,
    kind: LogKind.message,
    attrs: { level: "info", test: "deepep", numTokens: cap("tokens", "number"), hidden: cap("hidden", "number") },
    samples: ["[config] num_tokens=4096, hidden=7168, num_topk_groups=4, num_topk=8", "[config] num_tokens=4096, hidden=7168, num_topk=8"],
  },
  {
    id: "deepepTests.layout",
    level: "stdout",
    format: "[layout] Kernel performance: {ms:.3f} ms — get_dispatch_layout's time",
    source: SOURCE,
    checked: "✔",
    head: "[layout] Kernel performance: ",
    pattern: /\[layout\] Kernel performance: (?<ms>\d+\.\d+) ms/y,
    kind: LogKind.message,
    attrs: { level: "info", test: "deepep", layoutMs: cap("ms", "number") },
    samples: ["[layout] Kernel performance: 0.054 ms"],
  },
  {
    id: "deepepTests.case",
    level: "stdout",
    format: "[testing] Running with {FP8|BF16}, {with|without} top-k (async={bool}, previous={bool}) ... passed — printed without a newline before the case's checks, ` passed` once they held",
    source: SOURCE,
    checked: "✔",
    head: "[testing] Running with ",
    pattern: /\[testing\] Running with (?<dtype>FP8|BF16), (?:with|without) top-k \(async=(?:True|False), previous=(?:True|False)\) \.\.\.(?<passed> passed)?/y,
    kind: LogKind.message,
    attrs: { level: "info", test: "deepep", dtype: cap("dtype") },
    refine: (ev, g) => {
      ev.attrs!.passed = g.passed !== undefined;
    },
    samples: ["[testing] Running with BF16, without top-k (async=False, previous=False) ... passed", "[testing] Running with FP8, with top-k (async=True, previous=True) ..."],
  },
  {
    id: "deepepTests.tuning",
    level: "stdout",
    format:
      "[tuning] SMs {n}, NVL chunk {c}[, RDMA chunk {r}]: {x:.2f} GB/s (RDMA), {y:.2f} GB/s (NVL) / `[tuning] Best dispatch ({FP8|BF16}): SMs {n}, …` / `[tuning] Best combine: SMs {n}, …` — the tuning sweep's bandwidth of each configuration and the best one",
    source: SOURCE,
    checked: "✔",
    head: "[tuning] ",
    pattern: /\[tuning\] (?:Best (?:dispatch \((?:FP8|BF16)\)|combine): )?SMs (?<sms>\d+), NVL chunk \d+/y,
    kind: LogKind.message,
    attrs: { level: "info", test: "deepep", sms: cap("sms", "number") },
    samples: [
      "[tuning] SMs 24, NVL chunk 4, RDMA chunk 8: 43.21 GB/s (RDMA), 140.57 GB/s (NVL) ",
      "[tuning] Best dispatch (FP8): SMs 24, NVL chunk 32, RDMA chunk 16: 45.02 GB/s (RDMA), 146.48 GB/s (NVL)",
    ],
  },
  {
    id: "deepepTests.elastic_perf",
    level: "stdout",
    format:
      "   {*|-|#|@|+} EP: {rank:3}/{num_ranks} | {dispatch|expanded dispatch|cached dispatch|combine|reduced combine}: {so:.0f} GB/s (SO), {su:.0f} GB/s (SU), {t:.3f} us, {bytes:.0f} bytes | {copy|reduce}: {x:.0f} GB/s, {t:.3f} us — the V2 (elastic) test's bandwidth of each operation, one line per rank",
    source:
      "tests/elastic/test_ep.py test_dispatch_combine, `dist_print(f'   * EP: {buffer.rank_idx:3}/{buffer.num_ranks} | dispatch: …')` and the `-`, `#`, `@`, `+` lines after it (deepseek-ai/DeepEP 6757592e, index copy)",
    checked: "✔",
    head: (line, at) => ELASTIC_PERF_HEAD.test(line.substring(at, at + 12)),
    firstChars: " *-#@+",
    pattern:
      /\s*[*\-#@+] EP: *(?<rank>\d+)\/(?<ranks>\d+) \| (?<op>dispatch|expanded dispatch|cached dispatch|combine|reduced combine): +\d+ GB\/s \(SO\), +\d+ GB\/s \(SU\), (?<us>\d+\.\d+) us, \d+ bytes/y,
    kind: LogKind.message,
    attrs: { level: "info", test: "deepep", op: cap("op"), epRank: cap("rank", "number"), epRanks: cap("ranks", "number"), us: cap("us", "number") },
    samples: [
      // awslabs/awsome-distributed-ai#1234 (the corpus's awsome-distributed-ai-1234-a): a 16-rank V2 run over NCCL GIN.
      "   - EP:   4/16 | expanded dispatch: 115 GB/s (SO), 376 GB/s (SU), 1064.000 us, 400593024 bytes | copy: 4791 GB/s, 187.879 us",
      // Written from the `@` line's format string: a combine, with its reduce epilogue's bandwidth.
      "   @ EP:  11/16 | combine: 96 GB/s (SO), 301 GB/s (SU), 1387.125 us, 417792000 bytes | reduce: 1906 GB/s, 241.500 us",
    ],
  },
  {
    id: "deepepTests.npu_tuning",
    level: "stdout",
    format:
      "[tuning] Dispatch ({BF16|FP8|quant mode, raw_bytes=…GB|quant_type='…'}) {x:.2f} GB/s (HCCS)[, {y:.2f} GB/s (RDMA)], avg_t: {t:.2f} us[, notify_t: {n:.2f} us] / `[tuning] Combine {x:.2f} GB/s (HCCS)[, {y:.2f} GB/s (RDMA)], avg_t: {t:.2f} us` — sgl-kernel-npu's tuning figures on Ascend",
    source: NPU_TUNING_SOURCE,
    checked: "✔",
    head: "[tuning] ",
    pattern:
      /\[tuning\] (?<phase>Dispatch|Combine) (?:\([^()]{1,80}\) )?(?<hccs>\d+\.\d+) GB\/s \(HCCS\)(?:, (?<rdma>\d+\.\d+) GB\/s \(RDMA\))?, avg_t: (?<us>\d+\.\d+) us/y,
    kind: LogKind.message,
    attrs: { level: "info", test: "deepep", phase: cap("phase"), hccsGBps: cap("hccs", "number"), rdmaGBps: cap("rdma", "number"), avgUs: cap("us", "number") },
    samples: [
      "[tuning] Dispatch (BF16) 35.30 GB/s (HCCS), 8.80 GB/s (RDMA), avg_t: 13283.41 us, notify_t: 2555.80 us",
      "[tuning] Combine 52.56 GB/s (HCCS), 13.24 GB/s (RDMA), avg_t: 8832.71 us",
    ],
  },
  {
    id: "deepepTests.npu_average",
    level: "stdout",
    format: "Average {Dispatch|Combine} bandwidth: {bw:.2f} GB/s, avg_t={t:.2f} us — sgl-kernel-npu's mean of a low-latency case's per-rank figures",
    source: NPU_AVERAGE_SOURCE,
    checked: "✔",
    head: "Average ",
    pattern: /Average (?<phase>Dispatch|Combine) bandwidth: (?<bw>\d+\.\d+) GB\/s, avg_t=(?<us>\d+\.\d+) us/y,
    kind: LogKind.message,
    attrs: { level: "info", test: "deepep", phase: cap("phase"), bandwidthGBps: cap("bw", "number"), avgUs: cap("us", "number") },
    samples: ["Average Dispatch bandwidth: 46.29 GB/s, avg_t=634.32 us ", "Average Combine bandwidth: 54.02 GB/s, avg_t=543.55 us"],
  },
];

export const DEEPEP_TESTS: TemplateComponent = {
  name: "deepepTests",
  dialect: "engine",
  title: "DeepEP's tests",
  intro:
    "Rank 0's prints of `deepseek-ai/DeepEP`'s `tests/test_intranode.py` and `tests/test_internode.py`, with no logger: the configuration, the layout kernel's time, each functional case (` passed` at its end once its checks held) and the tuning sweep; each rank's bandwidth lines of the V2 (elastic) test, `tests/elastic/test_ep.py` (`op`, `epRank`, `us`), and of the low-latency test, `tests/test_low_latency.py` (`epRank`, `bandwidthGBps`, `dispatchGBps`, `combineGBps`); and the tuning and average bandwidth prints of `sgl-project/sgl-kernel-npu`'s Ascend port of them (`tests/python/deepep`). Event: `log.message` at info (`test: deepep`); a case that failed is followed by its assertion's traceback, read as every traceback is.",
  templates,
};
