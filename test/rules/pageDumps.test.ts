// The page-dumps bundle (test/bundles/README.md) end to end: `kvrewind analyze
// --json` names the mechanism behind each corrupted page with the bytes that
// prove it. Expectations written by hand from test/bundles/make_page_dumps.py:
// OLD's pages 40 and 41 were given to NEW (torn at row 37: rows 37..63 still
// OLD's pos 0) and to STALE (OLD's pos 1 byte for byte); HEALTHY's page is
// right but dumped with a checksum that is not its own.

import { after, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { analysisReportSchema } from "../../analyzer/rules/finding.js";
import { analyzeCli, bundle, cleanUp } from "./handBundles.js";
import { KVREWIND_CLI } from "../kvrewindCli.js";

after(cleanUp);

const OLD = "8972542885242963296";
const NEW = "7301152698145511823";
const STALE = "6917529027641081857";
const MAIN = KVREWIND_CLI;

function replay(path: string, ...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [MAIN, "replay", path, ...args], { encoding: "utf8" });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

test("analyze --json: a stale page (another room's bytes), a torn page (torn at row 37), a dump that disagrees with its checksum", async () => {
  const { path } = await bundle("page-dumps");
  const cli = analyzeCli(path, "--json");
  assert.equal(cli.status, 1, cli.stderr);
  const report = analysisReportSchema.parse(JSON.parse(cli.stdout));
  const pages = report.findings.filter((f) => f.rule === "page-bytes");

  const stale = pages.find((f) => f.room === STALE)!;
  assert.equal(stale.severity, "critical");
  assert.equal(stale.title, `Room ${STALE}: decode index_k layer 0 pos 0 is stale (room ${OLD}'s page)`);
  assert.match(stale.explanation, /decode\/tp0 page 41 \(decode_read, d0\/decode-pages\.jsonl:5\)/);
  assert.match(stale.explanation, new RegExp(`byte for byte room ${OLD}'s \\(its decode_recv dump of decode page 41\\), a previous owner of decode page 41`));
  // Row 0 of OLD's pos 1 (seed 2): FP8[(i + 2) % 6] = c0 40 3c 00 …, scale 3/64 = 0x3d400000.
  assert.match(stale.explanation, /decode row 0 bytes 0\.\.: c0 40 3c 00 38 30 /);
  assert.match(stale.explanation, /scale 0\.046875 \(bytes 8192\.\.8196: 00 00 40 3d\)/);
  assert.deepEqual(stale.witness.map((w) => `${w.source}:${w.line}`), ["p0/prefill-pages.jsonl:4", "d0/decode-pages.jsonl:5"]);

  const torn = pages.find((f) => f.room === NEW)!;
  assert.equal(torn.severity, "high");
  assert.equal(torn.title, `Room ${NEW}: decode index_k layer 0 pos 0 is torn (torn at row 37)`);
  assert.match(torn.explanation, /rows 37\.\.63 differ: torn at row 37: rows 0\.\.36 are the room's, rows 37\.\.63 are room 8972542885242963296's/);
  // Row 37's data at 37 × 128 = 4736; its scale at 8192 + 37 × 4 = 8340.
  assert.match(torn.explanation, /bytes 4736\.\.8192, 8340\.\.8448/);
  assert.match(torn.falsify, /is_last/);

  const selfCheck = pages.find((f) => /disagree with their own checksum/.test(f.title))!;
  assert.equal(selfCheck.verdict, "violated");
  assert.deepEqual(selfCheck.witness.map((w) => `${w.source}:${w.line}`), ["d0/decode-pages.jsonl:6"]);
  assert.match(selfCheck.explanation, /crc32 0badc0de/);

  const checksum = report.findings.find((f) => f.rule === "checksum-mismatch" && f.verdict === "violated")!;
  assert.equal(checksum.room, NEW);
  assert.match(checksum.explanation, /its dumped bytes \(d0\/decode-pages\.jsonl:3\) show torn: torn at row 37/);

  assert.equal(report.suspects[0]?.cause, "stale-slot-reuse");
  assert.ok(report.suspects[0]!.findings.includes(stale.id));
});

test("the page files are page bytes, not refused binaries; the page cut mid-page is an error of its index line, the others are kept", async () => {
  const { report } = await bundle("page-dumps");
  assert.ok(!report.coverage.gaps.some((g) => g.kind === "skipped-source"), JSON.stringify(report.coverage.gaps));
  const parse = report.coverage.gaps.find((g) => g.kind === "parse-errors")!;
  assert.equal(parse.source, "d0/decode-pages.jsonl");
  assert.match(parse.detail, /line 4: page not read: d0\/decode-pages\.npy: the page at offset 33792 \(8448 B\) is cut: the file ends 1000 B into it/);
  const rule = report.coverage.rules.find((r) => r.rule === "page-bytes")!;
  assert.equal(rule.verdict, "violated");
  // OLD's two pages, NEW's, STALE's and HEALTHY's page 42 pair with prefill; HEALTHY's pos 1 was cut.
  assert.equal(rule.checked, 5);
});

test("replay --at … --page 40: the page at the cursor, row by row against prefill's, with the diagnosis", async () => {
  const { path } = await bundle("page-dumps");
  // At 14:06:03 decode page 40 still holds OLD's page as received (equal to prefill's).
  const before = JSON.parse(replay(path, "--at", "2026-06-11T14:06:03Z", "--page", "40", "--json").stdout);
  assert.equal(before.page.page.room, OLD);
  assert.equal(before.page.diagnosis, null);
  assert.ok(before.page.rows.every((r: { differs: boolean }) => !r.differs));

  const after = replay(path, "--at", "2026-06-11T14:06:05Z", "--page", "40", "--json");
  assert.equal(after.status, 0, after.stderr);
  const view = JSON.parse(after.stdout).page;
  assert.equal(view.page.room, NEW);
  assert.equal(view.page.source, "d0/decode-pages.jsonl:3");
  assert.equal(view.prefill.source, "p0/prefill-pages.jsonl:3");
  assert.equal(view.diagnosis.mechanism, "torn");
  assert.deepEqual(view.diagnosis.tornAt, { row: 37, byte: 4736 });
  assert.deepEqual(view.rows.filter((r: { differs: boolean }) => r.differs).map((r: { row: number }) => r.row), Array.from({ length: 27 }, (_, i) => 37 + i));
  // Row 37 is OLD's (seed 1): FP8[(111 + i + 1) % 6] = FP8[(i + 4) % 6] = 1.5, 0, 1, 0.5 … × 2/64.
  const row37 = view.rows[37];
  assert.equal(row37.hex.slice(0, 11), "3c 00 38 30");
  assert.deepEqual(row37.values.slice(0, 4), [0.046875, 0, 0.03125, 0.015625]);
  assert.equal(row37.scale, 0.03125);
  assert.equal(row37.scaleHex, "00 00 00 3d");

  const text = replay(path, "--at", "2026-06-11T14:06:05Z", "--page", "40").stdout;
  assert.match(text, /^diagnosis: torn: torn at row 37/m);
  assert.match(text, /^≠ 37  3c 00 38 30 /m);
  assert.match(text, /^  36  40 3c 00 38 /m);

  const none = replay(path, "--at", "2026-06-11T14:06:05Z", "--page", "99");
  assert.equal(none.status, 2);
  assert.match(none.stderr, /no dump of page 99 at or before 2026-06-11T14:06:05Z/);
});
