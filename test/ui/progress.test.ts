// The progress an incident shows while its job runs: one percentage over the
// whole ingest (load and store steps: bytes parsed, rows written),
// that never goes back, and a word for what is being done.

import { test } from "node:test";
import assert from "node:assert/strict";
import { ingestProgress } from "../../ui/server/pipeline.js";
import type { IncidentRecord } from "../../ui/server/incidentRecord.js";
import { fixtureTarGz, startTestServer, uploadFiles, waitForIncident } from "./serverHarness.js";

test("each ingest step maps into its own part of one scale", () => {
  const MB = 2 ** 20;
  const seen = [
    ingestProgress({ phase: "load", done: 0, total: 80 * MB, lines: 0 }),
    ingestProgress({ phase: "load", done: 40 * MB, total: 80 * MB, lines: 1000 }),
    ingestProgress({ phase: "store", done: 500, total: 2000, lines: 0 }),
    ingestProgress({ phase: "store", done: 2000, total: 2000, lines: 0 }),
  ];
  assert.deepEqual(
    seen.map((p) => [p.step, p.percent]),
    [
      ["loading", 0],
      ["loading", 30],
      ["storing", 70],
      ["storing", 100],
    ],
  );
});

test("a real job's progress only grows while it ingests, and says what it does", async () => {
  const server = await startTestServer();
  try {
    const updates: NonNullable<IncidentRecord["progress"]>[] = [];
    const update = server.registry.update.bind(server.registry);
    server.registry.update = (id, patch, opts) => {
      if (patch.progress) updates.push(patch.progress);
      return update(id, patch, opts);
    };
    const up = await uploadFiles(server, [{ name: "wedge.tar.gz", content: await fixtureTarGz("nixl-abort-wedge") }]);
    assert.equal(up.status, 202);
    assert.equal((await waitForIncident(server, "wedge"))["status"], "ready");
    const ingest = updates.filter((p) => p.phase === "ingest");
    assert.ok(ingest.length >= 3, `${ingest.length} ingest updates`);
    for (let i = 1; i < ingest.length; i++) assert.ok(ingest[i]!.percent! >= ingest[i - 1]!.percent!, JSON.stringify(ingest));
    assert.ok(ingest.every((p) => p.percent !== null && p.percent >= 0 && p.percent <= 100 && p.step.length > 0));
    assert.deepEqual([...new Set(updates.map((p) => p.phase))], ["ingest", "analyze"]);
  } finally {
    await server.close();
  }
});
