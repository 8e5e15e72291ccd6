// A file cut into parts parsed on two load workers (ingest/load/loadPlan.ts,
// ingest/load/sourceParts.ts) gives the run one worker reading it whole gives:
// the same rows in the same order (time, line, host, rank, kind, room, attrs,
// inferred marks), the same texts, the same per-source statistics and the
// same facts (hash, identity, dates, anchors). Real files of the test
// bundles and format fixtures are cut at every line (parts of a few bytes,
// up to three files to a load), and at coarser steps, so that cuts land
// inside tracebacks, crash dumps, CRI partial lines, runs of undated lines
// and glog stamps that take their year from the lines above.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { formatByName } from "../../ingest/formats/index.js";
import { parseTimeZone } from "../../ingest/inputs/pathIdentity.js";
import { planLoad, type SplitOptions } from "../../ingest/load/loadPlan.js";
import type { LoadSource, ParsedSource } from "../../ingest/load/loadStream.js";
import { NUMBER_WIDTH, STRING_WIDTH, unpackBatch, type RowBatch } from "../../store/rows.js";
import { TAG_JSON, TAG_STRING } from "../../store/blocks/attrsCodec.js";
import { sniffSource } from "../../ingest/inputs/sniff.js";
import { ingest } from "../../ingest/pipeline.js";
import type { AnchorAgg } from "../../domain/clockAnchors.js";
import { eventRows, tempDir, withDb } from "./bundle.js";
import { decompress } from "../../store/codec.js";
import type { TextBlock } from "../../store/eventText.js";
import { datingHints } from "../../ingest/sources/timeHints.js";
import { runParse } from "../../ingest/load/workers.js";
import { RunStore } from "../../ingest/load/runStore.js";
import { scratchDir } from "../scratchDir.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    return e.isDirectory() ? filesUnder(p) : [p];
  });
}

/** Load sources for files, as the pipeline makes them (sniff, dating hints from every file). */
function loadSources(paths: string[]): LoadSource[] {
  const tz = parseTimeZone("UTC");
  const sniffed = paths.map((path) => ({ path, sniff: sniffSource(path, tz) })).filter((s) => s.sniff.rejection === null && s.sniff.format !== null);
  const dated = (d: number | null) => (d === null ? null : { firstUs: d, lastUs: d });
  const hints = datingHints(sniffed.map((s) => ({ host: null, dated: dated(s.sniff.firstDateUs), mtimeUs: s.sniff.mtimeUs })), null);
  return sniffed.map(({ path, sniff: r }, i) => ({
    sourceId: i + 1,
    plainPath: path,
    displayPath: path,
    format: r.format!,
    wrapper: r.wrapper,
    dating: r.format === "sglang-log" || r.format === "glog" || r.format === "text" ? hints[i]! : null,
    tzGiven: false,
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

/** Anchors folded per (key, domain), as store/anchors.ts addAnchors folds them. */
function fold(aggs: readonly AnchorAgg[]): Map<string, AnchorAgg> {
  const out = new Map<string, AnchorAgg>();
  const min = (a: number | null, b: number | null): number | null => (a === null ? b : b === null ? a : Math.min(a, b));
  const max = (a: number | null, b: number | null): number | null => (a === null ? b : b === null ? a : Math.max(a, b));
  for (const a of aggs) {
    const k = `${a.key}\u0000${a.domain}`;
    const was = out.get(k);
    out.set(k, was === undefined ? { ...a } : { ...was, minBefore: min(was.minBefore, a.minBefore), maxBefore: max(was.maxBefore, a.maxBefore), minAfter: min(was.minAfter, a.minAfter) });
  }
  return out;
}

interface Loaded {
  rows: unknown[][][];
  texts: Map<string, string>;
  stats: ParsedSource["stats"][];
  facts: unknown[];
}

async function load(sources: LoadSource[], workers: number | undefined, split?: SplitOptions): Promise<Loaded> {
  const texts = new Map<string, string>();
  const row = (batch: RowBatch, i: number): unknown[] => {
    const numbers = Array.from(batch.numbers.subarray(i * NUMBER_WIDTH, (i + 1) * NUMBER_WIDTH));
    const strings = Array.from(batch.stringRefs.subarray(i * STRING_WIDTH, (i + 1) * STRING_WIDTH), (k) => (k < 0 ? null : batch.strings[k]));
    return [...numbers, ...strings, encodedAttrs(batch, i)];
  };
  const addTexts = (blocks: readonly TextBlock[]): void => {
    for (const b of blocks) {
      const text = decompress(b.text);
      b.lines.forEach((line, j) => {
        const key = `${b.sourceId}:${line}`;
        assert.equal(texts.has(key), false, `text of ${key} written twice`);
        texts.set(key, Buffer.from(text.subarray(j === 0 ? 0 : b.ends[j - 1], b.ends[j])).toString("utf8"));
      });
    }
  };
  const store = new RunStore(scratchDir("kvr-split-runs-"), 0);
  const parsed = await runParse(sources, store, () => {}, workers, split);
  const rows = parsed.map((p) =>
    p.batches.map((b) => unpackBatch(store.take(b))).flatMap((batch) => {
      addTexts(batch.texts);
      return Array.from({ length: batch.length }, (_, i) => row(batch, i));
    }),
  );
  store.close();
  const facts = parsed.map((p) => ({ ...p.facts, anchors: fold(p.facts.anchors) }));
  return { rows, texts, stats: parsed.map((p) => p.stats), facts };
}

async function assertSplitLikeWhole(sources: LoadSource[], partBytes: number[]): Promise<void> {
  // The reference: the sources read whole on this thread, as a small ingest reads them.
  const whole = await load(sources, undefined);
  assert.ok(whole.rows.some((r) => r.length > 0));
  for (const bytes of partBytes) {
    const split = { splitBytes: 0, partBytes: bytes };
    const plan = planLoad(sources, 2, split);
    assert.ok(plan.split.length > 0 && plan.split.some((s) => s.parts > 1), `parts of ${bytes} bytes cut no file`);
    const parts = await load(sources, 2, split);
    const what = `${sources.map((s) => s.displayPath.slice(ROOT.length)).join(", ")} in parts of ${bytes} bytes`;
    assert.deepEqual(parts.rows, whole.rows, `rows of ${what}`);
    assert.deepEqual(parts.texts, whole.texts, `texts of ${what}`);
    assert.deepEqual(parts.stats, whole.stats, `statistics of ${what}`);
    assert.deepEqual(parts.facts, whole.facts, `facts of ${what}`);
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
  // Each file is sniffed and dated on its own, as if it were read alone; files are then loaded in
  // threes, every one of them cut at every line.
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

test("a bundle with cut and whole sources parses as one worker reading them all", async () => {
  // Bundles where one or two files hold most of the bytes: those are cut, the others read whole.
  for (const bundle of ["crashed-scheduler", "nccl-watchdog", "segfault"]) {
    const sources = loadSources(filesUnder(join(ROOT, "test/bundles", bundle)).filter((p) => !p.endsWith(".md")));
    await assertSplitLikeWhole(sources, [1, 503]);
  }
});

test("an ingest that parses every file in parts gives the offsets, sources and events of one that reads them whole", async () => {
  const dir = tempDir("split-load");
  const bundle = join(ROOT, "fixtures/incidents/stale-slot-reuse");
  const whole = await ingest({ db: join(dir, "whole.db"), paths: [bundle] });
  const split = await ingest({ db: join(dir, "split.db"), paths: [bundle], loadWorkers: 2, loadSplit: { splitBytes: 0, partBytes: 4096 } });
  assert.deepStrictEqual(split.clockOffsetsUs, whole.clockOffsetsUs);
  assert.ok(Object.values(whole.clockOffsetsUs).some((us) => us !== 0), "the fixture's clocks differ");
  assert.deepStrictEqual(split.sources, whole.sources);
  const events = withDb(join(dir, "whole.db"), eventRows);
  assert.ok(events.length > 1000, `events: ${events.length}`);
  assert.deepStrictEqual(withDb(join(dir, "split.db"), eventRows), events);
});
