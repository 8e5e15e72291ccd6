// One writer's record, however it was saved: the parts of a rotated log are
// one stream, and identical files of different ranks are each their rank's
// evidence. Ingested by the real pipeline and analyzed by the real rules.

import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { analyzeIncident } from "../../analyzer/rules/index.js";
import { ingest } from "../../ingest/pipeline.js";
import { openIncident } from "../../store/db.js";
import { listIngestedSources } from "../../store/read/sources.js";
import { BOOTSTRAP_DEATH, eventRows, tempDir, withDb, writeTree } from "./bundle.js";

/** Decode batch lines every 10 s from `from` to `to` (HH:MM:SS, inclusive), as SGLang 0.5 writes them. */
function decodeBatches(from: string, to: string, tp: number): string[] {
  const sec = (t: string) => t.split(":").reduce((n, x) => n * 60 + Number(x), 0);
  const clock = (s: number) => [Math.floor(s / 3600), Math.floor(s / 60) % 60, s % 60].map((x) => String(x).padStart(2, "0")).join(":");
  const lines: string[] = [];
  for (let s = sec(from); s <= sec(to); s += 10) {
    lines.push(
      `[2026-06-11 ${clock(s)} DP0 TP${tp}] Decode batch, #running-req: 44, #token: 303600, token usage: 0.63, pre-allocated usage: 0.02, #prealloc-req: 0, #transfer-req: 5, #retracted-req: 0, cuda graph: True, gen throughput (token/s): 2125.20, #queue-req: 0`,
    );
  }
  return lines;
}

function prefillBatches(from: string, to: string, tp: number): string[] {
  return decodeBatches(from, to, tp).map((l) =>
    l.replace(/\] Decode batch.*$/, "] Prefill batch, #new-seq: 1, #new-token: 8192, #cached-token: 0, token usage: 0.04, #running-req: 1, #queue-req: 0"),
  );
}

const text = (lines: readonly string[]) => `${lines.join("\n")}\n`;

test("a rotated decode log with a gap between its files is one stream: no part 'stopped writing', one rank", async () => {
  const dir = tempDir("rotated");
  const root = join(dir, "bundle");
  writeTree(root, {
    // logrotate's numbering, the oldest compressed; rotated at a quiet moment, 40 s apart.
    "d0/decode.log.2.gz": gzipSync(text(decodeBatches("14:00:00", "14:04:50", 0))),
    "d0/decode.log.1": text(decodeBatches("14:05:30", "14:09:50", 0)),
    "d0/decode.log": text(decodeBatches("14:10:00", "14:15:00", 0)),
    "p0/prefill.log": text(prefillBatches("14:00:00", "14:15:00", 0)),
  });
  const db = join(dir, "i.db");
  await ingest({ db, paths: [root] });
  withDb(db, (h) => {
    const decode = listIngestedSources(h).filter((s) => s.role === "decode");
    assert.deepEqual(
      decode.map((s) => [s.path.slice(root.length + 1), s.stream.slice(root.length + 1), s.ranks]),
      [
        ["d0/decode.log.2.gz", "d0/decode.log", ["decode/dp0/tp0"]],
        ["d0/decode.log.1", "d0/decode.log", ["decode/dp0/tp0"]],
        ["d0/decode.log", "d0/decode.log", ["decode/dp0/tp0"]],
      ],
      "oldest first, one stream",
    );
  });
  const handle = openIncident(db);
  try {
    const report = analyzeIncident(handle);
    const gaps = report.coverage.gaps.filter((g) => g.kind === "time-gap");
    assert.deepEqual(gaps.map((g) => g.detail), [], "the first two files end where the next one takes over");
  } finally {
    handle.close();
  }
});

test("a rotated stream that does go quiet while the others write: one pause of the stream, across its files", async () => {
  const dir = tempDir("rotated-pause");
  const root = join(dir, "bundle");
  writeTree(root, {
    "d0/decode.log-20260611": text(decodeBatches("14:00:00", "14:04:00", 0)),
    "d0/decode.log": text(decodeBatches("14:09:00", "14:15:00", 0)),
    "p0/prefill.log": text(prefillBatches("14:00:00", "14:15:00", 0)),
  });
  const db = join(dir, "i.db");
  await ingest({ db, paths: [root] });
  const handle = openIncident(db);
  try {
    const gaps = analyzeIncident(handle).coverage.gaps.filter((g) => g.kind === "time-gap");
    assert.equal(gaps.length, 1);
    assert.equal(gaps[0]!.source, `${join(root, "d0/decode.log")} (rotated, 2 files)`);
    assert.deepEqual([gaps[0]!.from, gaps[0]!.to], ["2026-06-11T14:04:00.000Z", "2026-06-11T14:09:00.000Z"]);
    assert.match(gaps[0]!.detail, /decode\.log-20260611:25 to .*decode\.log:1/);
  } finally {
    handle.close();
  }
});


test("eight per-rank files with identical lines are eight sources: every rank's thread death is kept", async () => {
  const dir = tempDir("identical-ranks");
  const root = join(dir, "bundle");
  const files: Record<string, string> = { "p0/prefill.log": text(prefillBatches("14:00:00", "14:05:00", 0)) };
  // Each rank's stderr, captured on its own: the same thread died the same way on all eight.
  for (let tp = 0; tp < 8; tp++) files[`p0/rank_${tp}.stderr`] = text(BOOTSTRAP_DEATH);
  writeTree(root, files);
  const db = join(dir, "i.db");
  const first = await ingest({ db, paths: [root] });
  assert.deepEqual(first.sources.filter((s) => s.status !== "ingested").map((s) => s.path), [], "nothing skipped as a duplicate");
  withDb(db, (h) => {
    const deaths = eventRows(h).filter((r) => r.text.startsWith("Exception in thread Thread-3 (bootstrap_thread):"));
    assert.deepEqual(deaths.map((r) => r.tp).sort(), [0, 1, 2, 3, 4, 5, 6, 7]);
  });
  const handle = openIncident(db);
  try {
    const death = analyzeIncident(handle).findings.find((f) => f.rule === "unhandled-abort" && f.verdict === "violated");
    assert.ok(death, "the bootstrap threads' deaths are judged");
    assert.deepEqual(death.ranks, [0, 1, 2, 3, 4, 5, 6, 7].map((tp) => `prefill/tp${tp}`));
  } finally {
    handle.close();
  }
  // The same bundle again: the same paths with the same content add nothing.
  const again = await ingest({ db, paths: [root] });
  assert.equal(again.eventsAdded, 0);
  assert.deepEqual([...new Set(again.sources.map((s) => s.status))], ["duplicate"]);
});
