import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { ingest } from "../../ingest/pipeline.js";
import { getMetaJson } from "../../ingest/store/db.js";
import { eventRows, ROOMS, skewedBundle, T0, tempDir, withDb } from "./bundle.js";

test("a multi-host bundle with a known skew: the offset is recovered and the order is causal", async () => {
  const dir = tempDir("skew");
  const bundle = skewedBundle(join(dir, "bundle"), 40_000);
  const db = join(dir, "incident.db");
  const summary = await ingest({ db, paths: [bundle] });

  // Metadata d0 -> p0 is seen 42 ms apart, notifs p0 -> d0 -38 ms apart: o[p0] - o[d0] lies in
  // [-42, -38] ms, midpoint -40 ms; the tolerance is the half-width, 2 ms. d0 is the reference.
  assert.deepEqual(summary.clockOffsetsUs, { d0: 0, p0: -40_000 });
  withDb(db, (h) => {
    assert.deepEqual(getMetaJson(h, "clock_offsets"), { d0: 0, p0: -40_000 });
    const alignment = getMetaJson<{ pairs: { a: string; b: string; lo: number; hi: number }[] }>(h, "clock_alignment");
    assert.deepEqual(alignment?.pairs.map((p) => [p.a, p.b, p.lo, p.hi]), [["d0", "p0", 38_000, 42_000]]);

    const rows = eventRows(h);
    // Per room, in seq order: metadata sent, got info, notif sent, notif received.
    for (const room of ROOMS) {
      assert.deepEqual(
        rows.filter((r) => r.room === room).map((r) => r.kind),
        ["boot.metadata_sent", "boot.got_info", "xfer.notif_sent", "kv.notify"],
      );
    }
    // Times are aligned to d0's clock: p0's got-info of the first room is T0 + 2 ms - 40 ms.
    const firstGotInfo = rows.find((r) => r.kind === "boot.got_info")!;
    assert.equal(firstGotInfo.ts_us, T0 + 2000 - 40_000);
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
  // o[p0] - o[d0] in [-2, 2] ms.
  assert.deepEqual(summary.clockOffsetsUs, { d0: 0, p0: 0 });
});
