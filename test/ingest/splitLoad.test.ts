// A file cut into parts parsed on two load workers (ingest/load/loadPlan.ts,
// ingest/load/sourceParts.ts) gives the events one worker reading it whole gives:
// the same rows in the same order (time, line, host, rank, kind, room, attrs,
// inferred marks), the same texts and the same per-source statistics. Real
// files of the test bundles and format fixtures are cut at every line (parts
// of a few bytes, up to three files to a load), and at coarser steps, so
// that cuts land inside tracebacks, crash dumps, CRI partial lines, runs of
// undated lines and glog stamps that take their year from the lines above.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { formatByName } from "../../ingest/formats/index.js";
import { parseTimeZone } from "../../ingest/inputs/pathIdentity.js";
import { planLoad, type SplitOptions } from "../../ingest/load/loadPlan.js";
import type { LoadedStats, LoadSource } from "../../ingest/load/loadStream.js";
import { NUMBER_WIDTH, STRING_WIDTH, type RowBatch } from "../../store/rows.js";
import { TAG_JSON, TAG_STRING } from "../../store/blocks/attrsCodec.js";
import { scanSource } from "../../ingest/scan/scan.js";
import { decompress } from "../../store/codec.js";
import type { TextBlock } from "../../store/eventText.js";
import { datingHints } from "../../ingest/scan/timeHints.js";
import { runLoad } from "../../ingest/load/workers.js";
import { scratchDir } from "../scratchDir.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    return e.isDirectory() ? filesUnder(p) : [p];
  });
}

/** Load sources for files, as the pipeline makes them (scan, dating hints from every file). */
function loadSources(paths: string[]): LoadSource[] {
  const tz = parseTimeZone("UTC");
  const scanned = paths.map((path, i) => ({
    path,
    report: scanSource({ file: i, plainPath: path, displayPath: path, identityPath: path, flagHost: null, flagRole: null, tz }, () => {}),
  }));
  const readable = scanned.filter((s) => s.report.rejection === null && s.report.format !== null);
  const hints = datingHints(readable.map((s) => ({ host: s.report.host, dated: s.report.dated, mtimeUs: s.report.mtimeUs })), null);
  return readable.map(({ path, report: r }, i) => ({
    sourceId: i + 1,
    plainPath: path,
    displayPath: path,
    format: r.format!,
    wrapper: r.wrapper,
    host: r.host,
    role: r.role,
    rank: r.rank,
    dating: r.format === "sglang-log" || r.format === "glog" || r.format === "text" ? hints[i]! : null,
    tzGiven: false,
    domain: r.domain,
    tzOffsetMinutes: r.tzOffsetMinutes,
    bytes: r.bytes,
  }));
}

/** Row i's attrs as its batch encodes them (keys, tags, values), batch-local ids replaced by what they name. */
function encodedAttrs(batch: RowBatch, i: number): unknown {
  const a = batch.attrs;
  const shape = a.shape[i]!;
  if (shape < 0) return null;
  const keys = a.shapes[shape]!;
  const from = a.start[i]!;
  const tags = Array.from(a.tags.subarray(from, from + keys.length));
  const values = Array.from(a.values.subarray(from, from + keys.length), (v, k) => (tags[k] === TAG_STRING ? batch.strings[v] : tags[k] === TAG_JSON ? a.json[v] : v));
  return { keys, tags, values };
}

interface Loaded {
  rows: unknown[][];
  texts: Map<string, string>;
  stats: LoadedStats[];
}

async function load(sources: LoadSource[], workers: number | undefined, split?: SplitOptions): Promise<Loaded> {
  const rows: unknown[][] = [];
  const texts = new Map<string, string>();
  const sink = {
    addRow(batch: RowBatch, i: number): void {
      const numbers = Array.from(batch.numbers.subarray(i * NUMBER_WIDTH, (i + 1) * NUMBER_WIDTH));
      const strings = Array.from(batch.stringRefs.subarray(i * STRING_WIDTH, (i + 1) * STRING_WIDTH), (k) => (k < 0 ? null : batch.strings[k]));
      rows.push([...numbers, ...strings, encodedAttrs(batch, i)]);
    },
    addTexts(blocks: readonly TextBlock[]): void {
      for (const b of blocks) {
        const text = decompress(b.text);
        b.lines.forEach((line, j) => {
          const key = `${b.sourceId}:${line}`;
          assert.equal(texts.has(key), false, `text of ${key} written twice`);
          texts.set(key, Buffer.from(text.subarray(j === 0 ? 0 : b.ends[j - 1], b.ends[j])).toString("utf8"));
        });
      }
    },
  };
  const stats = await runLoad(sources, {}, sink, () => {}, workers, split);
  return { rows, texts, stats };
}

async function assertSplitLikeWhole(sources: LoadSource[], partBytes: number[]): Promise<void> {
  // The reference: the sources read whole and merged on this thread, as a small ingest reads them.
  const whole = await load(sources, undefined);
  assert.ok(whole.rows.length > 0);
  for (const bytes of partBytes) {
    const split = { splitBytes: 0, partBytes: bytes };
    const plan = planLoad(sources, 2, split);
    assert.ok(plan.split.length > 0 && plan.split.some((s) => s.parts > 1), `parts of ${bytes} bytes cut no file`);
    const parts = await load(sources, 2, split);
    const what = `${sources.map((s) => s.displayPath.slice(ROOT.length)).join(", ")} in parts of ${bytes} bytes`;
    assert.deepEqual(parts.rows, whole.rows, `rows of ${what}`);
    assert.deepEqual(parts.texts, whole.texts, `texts of ${what}`);
    assert.deepEqual(parts.stats, whole.stats, `statistics of ${what}`);
  }
}

const LOG_FILES = [
  ...filesUnder(join(ROOT, "test/bundles")).filter((p) => !p.endsWith("README.md")),
  ...filesUnder(join(ROOT, "test/formats/fixtures")),
];

/**
 * Sources in loads of up to three, each more than a quarter of its load's bytes, so that
 * planLoad cuts every one of them. A load's cost is its workers' start-up, not its cuts: three
 * files in a load cost about what one does.
 */
function loadsCuttingEach(sources: LoadSource[]): LoadSource[][] {
  const bySize = [...sources].sort((a, b) => b.bytes - a.bytes);
  const loads: LoadSource[][] = [];
  while (bySize.length > 0) {
    const load = [bySize.shift()!];
    const bytes = (): number => load.reduce((n, s) => n + s.bytes, 0);
    while (load.length < 3 && bySize.length > 0 && bySize[0]!.bytes * 3 > bytes()) load.push(bySize.shift()!);
    loads.push(load.map((s, i) => ({ ...s, sourceId: i + 1 })));
  }
  return loads;
}

test("every bundle and fixture file cut at every line (and coarser) loads as it loads whole", async () => {
  // Each file is scanned and dated on its own, as if it were read alone; files are then loaded in
  // threes (their rows merged), every one of them cut at every line.
  const sources = LOG_FILES.flatMap((path) => loadSources([path]));
  // Files of a line or two have nothing to cut; formats with no seam (JSON dumps, checksum tables, trace files) are read whole.
  const cuttable = sources.filter((s) => !(s.bytes < 1024 || formatByName(s.format).isSeam === undefined));
  for (const load of loadsCuttingEach(cuttable)) {
    const plan = planLoad(load, 2, { splitBytes: 0, partBytes: 1 });
    assert.deepEqual(plan.split.map((s) => s.source.displayPath).sort(), load.map((s) => s.displayPath).sort(), "every file of the load is cut");
    await assertSplitLikeWhole(load, [1]);
  }
});

test("CRLF lines, a traceback and a CRI partial line across the cuts, in one file of many dialects", async () => {
  const dir = scratchDir("kvr-split-");
  const pod = join(ROOT, "test/bundles/k8s-mooncake-pod-logs/var/log/pods");
  const cri = filesUnder(pod).map((p) => readFileSync(p, "utf8"));
  const crashed = readFileSync(join(ROOT, "test/bundles/crashed-scheduler/p0/prefill-tp0.log"), "utf8");
  const segfault = readFileSync(join(ROOT, "test/bundles/segfault/p0/prefill-tp0.log"), "utf8");
  const crlf = join(dir, "prefill-tp0.log");
  writeFileSync(crlf, (crashed + segfault).replace(/\n/g, "\r\n"));
  const wrapped = join(dir, "sglang-prefill-0.log");
  writeFileSync(wrapped, cri.join(""));
  for (const path of [crlf, wrapped]) await assertSplitLikeWhole(loadSources([path]), [1, 97, Math.ceil(statSync(path).size / 5)]);
});

test("a bundle with cut and whole sources merges into the order of one worker reading them all", async () => {
  // Bundles where one or two files hold most of the bytes: those are cut, the others read whole.
  for (const bundle of ["crashed-scheduler", "nccl-watchdog", "segfault"]) {
    const sources = loadSources(filesUnder(join(ROOT, "test/bundles", bundle)).filter((p) => !p.endsWith(".md")));
    await assertSplitLikeWhole(sources, [1, 503]);
  }
});
