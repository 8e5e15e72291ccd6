// A large file scanned in parts on both scan workers (ingest/scan/scanParts.ts)
// reports what one scan of the whole file reports: hash, bytes, lines,
// format, wrapper, host, role, rank, zone, dates — and its clock anchors,
// folded as the store folds them (min/max per key and domain). Real files of
// the fixtures and bundles (SGLang logs with notification lines, CRI-wrapped
// pod logs, glog, probe JSONL, a Flight Recorder dump) are cut into 2, 3 and
// 7 parts; files under the anchor sampling threshold, so every anchor line
// is read either way. Then a whole ingest with every file cut gives the
// clock offsets and events of an ingest that cuts none.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { AnchorAgg } from "../../domain/clockAnchors.js";
import { parseTimeZone } from "../../ingest/inputs/pathIdentity.js";
import { ingest } from "../../ingest/pipeline.js";
import { scanSource, type ScanReport, type ScanRequest } from "../../ingest/scan/scan.js";
import { mergeScanParts, scanRequestsOf } from "../../ingest/scan/scanParts.js";
import { eventRows, tempDir, withDb } from "./bundle.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    return e.isDirectory() ? filesUnder(p) : [p];
  });
}

function requestFor(path: string): ScanRequest {
  const displayPath = path.slice(ROOT.length);
  return { file: 0, plainPath: path, displayPath, identityPath: displayPath, flagHost: null, flagRole: null, tz: parseTimeZone("UTC") };
}

/** Anchors folded per (key, domain) as mergeScanAnchors folds them. */
function fold(aggs: AnchorAgg[]): Map<string, AnchorAgg> {
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

function scanInParts(req: ScanRequest, parts: number): { report: ScanReport; anchors: Map<string, AnchorAgg> } {
  const aggs: AnchorAgg[] = [];
  const requests = scanRequestsOf(req, statSync(req.plainPath).size, parts, 0);
  const reports = requests.map((r) => scanSource(r, (a) => aggs.push(...a)));
  return { report: mergeScanParts(req, reports), anchors: fold(aggs) };
}

const FILES = [
  ...filesUnder(join(ROOT, "fixtures/incidents/stale-slot-reuse")).filter((f) => /tp0\.(log|jsonl)$/.test(f)),
  ...filesUnder(join(ROOT, "fixtures/incidents/nixl-abort-wedge")).filter((f) => /(tp0\.log|probe-tp0\.jsonl)$/.test(f)),
  ...filesUnder(join(ROOT, "test/bundles/k8s-mooncake-pod-logs")),
  ...filesUnder(join(ROOT, "test/bundles/crashed-scheduler")),
  ...filesUnder(join(ROOT, "test/bundles/nccl-watchdog")),
];

test("a file scanned in 2, 3 or 7 parts reports what its whole scan reports, anchors included", () => {
  assert.ok(FILES.length >= 12, `files: ${FILES.length}`);
  let anchored = 0;
  for (const path of FILES) {
    const req = requestFor(path);
    const whole = scanInParts(req, 1);
    if (whole.anchors.size > 0) anchored++;
    for (const parts of [2, 3, 7]) {
      const split = scanInParts(req, parts);
      assert.deepStrictEqual(split.report, whole.report, `${req.displayPath} in ${parts} parts`);
      assert.deepStrictEqual(split.anchors, whole.anchors, `${req.displayPath} in ${parts} parts: anchors`);
    }
  }
  assert.ok(anchored >= 4, `files with anchors: ${anchored}`);
});

test("the cut: parts start at line starts, cover the file, and only part 0 hashes", () => {
  const path = join(ROOT, "fixtures/incidents/stale-slot-reuse/p1/prefill-tp0.log");
  const req = requestFor(path);
  const size = statSync(path).size;
  const requests = scanRequestsOf(req, size, 3, 0);
  assert.equal(requests.length, 3);
  assert.equal(requests[0]!.part!.startByte, 0);
  for (let i = 1; i < requests.length; i++) assert.equal(requests[i]!.part!.startByte, requests[i - 1]!.part!.endByte);
  assert.equal(requests[2]!.part!.endByte, null);
  const reports = requests.map((r) => scanSource(r, () => {}));
  assert.match(reports[0]!.sha256, /^[0-9a-f]{64}$/);
  assert.deepEqual(reports.slice(1).map((r) => r.sha256), ["", ""]);
  assert.equal(reports[0]!.bytes, size, "part 0 hashed the whole file");
  assert.deepEqual(scanRequestsOf(req, size, 2), [req], "a small file is one whole part by default");
});

test("an ingest that scans every file in parts gives the offsets and events of one that scans them whole", async () => {
  const dir = tempDir("split-scan");
  const bundle = join(ROOT, "fixtures/incidents/stale-slot-reuse");
  const whole = await ingest({ db: join(dir, "whole.db"), paths: [bundle] });
  const split = await ingest({ db: join(dir, "split.db"), paths: [bundle], scanSplitBytes: 0 });
  assert.deepStrictEqual(split.clockOffsetsUs, whole.clockOffsetsUs);
  assert.ok(Object.values(whole.clockOffsetsUs).some((us) => us !== 0), "the fixture's clocks differ");
  assert.deepStrictEqual(split.sources, whole.sources);
  const events = withDb(join(dir, "whole.db"), eventRows);
  assert.ok(events.length > 1000, `events: ${events.length}`);
  assert.deepStrictEqual(withDb(join(dir, "split.db"), eventRows), events);
});
