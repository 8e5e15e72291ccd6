import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { ingest } from "../../ingest/pipeline.js";
import { getMetaJson } from "../../store/db.js";
import { eventRows, ROOMS, skewedBundle, T0, tempDir, withDb } from "./bundle.js";

test("a multi-host bundle with a known skew: the offset is recovered and the order is causal", async () => {
  const dir = tempDir("skew");
  const bundle = skewedBundle(join(dir, "bundle"), 40_000);
  const db = join(dir, "incident.db");
  const summary = await ingest({ db, paths: [bundle] });

  // Notifs p0 -> d0 are seen 38 ms apart (probe receipt stamped to the us), so o[p0] - o[d0] <=
  // -38 ms - 1 us; metadata d0 -> p0 42 ms apart (got-info stamped to the ms, so up to 42.999 ms),
  // so o[d0] - o[p0] <= 42.998 ms. The true -40 ms lies in [-42.998, -38.001] ms; p0 is moved the
  // least that satisfies causality, -38.001 ms: within the interval's 5 ms width of the truth.
  assert.deepEqual(summary.clockOffsetsUs, { d0: 0, p0: -38_001 });
  assert.ok(Math.abs(summary.clockOffsetsUs.p0! - -40_000) <= 5_000);
  withDb(db, (h) => {
    assert.deepEqual(getMetaJson(h, "clock_offsets"), { d0: 0, p0: -38_001 });
    const alignment = getMetaJson<{ consistent: boolean; pairs: { a: string; b: string; lo: number; hi: number }[] }>(h, "clock_alignment");
    assert.equal(alignment?.consistent, true);
    assert.deepEqual(alignment?.pairs.map((p) => [p.a, p.b, p.lo, p.hi]), [["d0", "p0", 38_001, 42_998]]);

    const rows = eventRows(h);
    // Per room, in seq order: metadata sent, got info, notif sent, notif received.
    for (const room of ROOMS) {
      assert.deepEqual(
        rows.filter((r) => r.room === room).map((r) => r.kind),
        ["boot.metadata_sent", "boot.got_info", "xfer.notif_sent", "kv.notify"],
      );
    }
    // p0's got-info of the first room, stamped T0 + 2 ms, is moved by -38.001 ms.
    const firstGotInfo = rows.find((r) => r.kind === "boot.got_info")!;
    assert.equal(firstGotInfo.ts_us, T0 + 2000 - 38_001);
    assert.equal(firstGotInfo.host, "p0");
    // Each source keeps its own line order.
    for (const source of new Set(rows.map((r) => r.source))) {
      const lines = rows.filter((r) => r.source === source).map((r) => r.line);
      assert.deepEqual(lines, [...lines].sort((a, b) => a - b));
    }
  });
});

test("without a skew the same bundle needs no correction", async () => {
  const dir = tempDir("noskew");
  const summary = await ingest({ db: join(dir, "incident.db"), paths: [skewedBundle(join(dir, "bundle"), 0)] });
  // o[p0] - o[d0] <= 1.999 ms and o[d0] - o[p0] <= 2.998 ms: 0 satisfies both.
  assert.deepEqual(summary.clockOffsetsUs, { d0: 0, p0: 0 });
});
