// The suspects come first: an upload's job stores its findings and says so
// before it indexes the timeline (the step that grows most with the
// incident), and the server answers the findings from then on, while the
// rest of the incident still waits for the timeline.

import { test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { runPipeline, type PipelineMessage } from "../../ui/server/pipeline.js";
import { openIncident } from "../../store/db.js";
import { loadAnalysis } from "../../analyzer/rules/index.js";
import { timelineIsCurrent } from "../../analyzer/timeline/timelineStore.js";
import type { IncidentRecord } from "../../ui/server/incidentRecord.js";
import type { Finding, Suspect } from "../../ui/wire.js";
import { scratchDir } from "../scratchDir.js";
import { FIXTURES, fixtureTarGz, getJson, holdReady, startTestServer, uploadFiles } from "./serverHarness.js";

/** What fixtures/incidents/nixl-abort-wedge/expected.json says its analysis must rank first. */
const WEDGE_TOP = (JSON.parse(readFileSync(join(FIXTURES, "nixl-abort-wedge", "expected.json"), "utf8")) as { topSuspect: string }).topSuspect;

test("the job stores the findings and says so before the timeline is indexed", async () => {
  const input = scratchDir("kvrewind-early-in-");
  cpSync(join(FIXTURES, "nixl-abort-wedge"), input, { recursive: true, filter: (src) => basename(src) !== "expected.json" });
  const dbPath = join(scratchDir("kvrewind-early-db-"), "wedge.db");
  const said: string[] = [];
  let atAnalyzed: { top: string | undefined; timelineStored: boolean } | undefined;
  const report = (msg: PipelineMessage): void => {
    said.push(msg.type === "progress" ? `${msg.progress.phase}: ${msg.progress.step}` : msg.type);
    if (msg.type !== "analyzed") return;
    const db = openIncident(dbPath, { readonly: true });
    try {
      atAnalyzed = { top: loadAnalysis(db)?.suspects[0]?.cause, timelineStored: timelineIsCurrent(db) };
    } finally {
      db.close();
    }
  };
  const cwd = process.cwd();
  process.chdir(input);
  try {
    await runPipeline({ dbPath, name: "wedge" }, report);
  } finally {
    process.chdir(cwd);
  }
  assert.deepEqual(atAnalyzed, { top: WEDGE_TOP, timelineStored: false });
  const analysisSteps = said.filter((s) => !s.startsWith("ingest:"));
  assert.deepEqual(analysisSteps, ["analyze: replaying", "analyze: checking", "analyzed", "analyze: indexing the timeline"]);
  const db = openIncident(dbPath, { readonly: true });
  try {
    assert.equal(timelineIsCurrent(db), true, "the job's end leaves the timeline indexed");
  } finally {
    db.close();
  }
});

test("the server answers an incident's findings once they are stored, and the timeline only when it is ready", async () => {
  const server = await startTestServer();
  try {
    const hold = holdReady(server, "wedge");
    const up = await uploadFiles(server, [{ name: "wedge.tar.gz", content: await fixtureTarGz("nixl-abort-wedge") }]);
    assert.equal(up.status, 202);
    await hold.held;

    const record = (await getJson(server, "/api/incidents/wedge")).body["incident"] as IncidentRecord;
    assert.equal(record.status, "analyzing");
    assert.equal(record.findingsReady, true);
    assert.equal(record.summary?.topSuspect?.cause, WEDGE_TOP, "the list's top suspect comes with the findings");
    const early = await getJson(server, "/api/incidents/wedge/findings");
    assert.equal(early.status, 200, early.text);
    const { findings, suspects } = early.body as unknown as { findings: Finding[]; suspects: Suspect[] };
    assert.equal(suspects[0]?.cause, WEDGE_TOP);
    const abort = findings.find((f) => f.rule === "unhandled-abort" && f.verdict === "violated");
    assert.ok(abort, "the abort's finding is there");
    assert.ok(abort.body.witness?.some((w) => w.text.includes("First message should be b'NixlMsgGuard'. Foreign traffic?")));
    assert.ok(findings.every((f) => f.placed.length === 0), "no witness is placed before the timeline exists");
    assert.equal((await getJson(server, "/api/incidents/wedge/lanes")).status, 409, "the timeline waits for its index");

    hold.release();
    assert.equal(((await getJson(server, "/api/incidents/wedge")).body["incident"] as IncidentRecord).status, "ready");
    const ready = (await getJson(server, "/api/incidents/wedge/findings")).body as unknown as { findings: Finding[]; suspects: Suspect[] };
    assert.deepEqual(
      ready.suspects.map((s) => s.cause),
      suspects.map((s) => s.cause),
    );
    assert.ok(ready.findings.some((f) => f.placed.length > 0), "once ready, the witnesses are placed");
  } finally {
    await server.close();
  }
});

test("an incident whose job has not stored its findings answers 409, not an earlier job's findings", async () => {
  const server = await startTestServer();
  try {
    const hold = holdReady(server, "wedge");
    await uploadFiles(server, [{ name: "wedge.tar.gz", content: await fixtureTarGz("nixl-abort-wedge") }]);
    await hold.held;
    hold.release();
    // A re-analysis: the database still holds the last analysis, which must not be served as this job's.
    server.registry.update("wedge", { status: "analyzing", findingsReady: false });
    assert.equal((await getJson(server, "/api/incidents/wedge/findings")).status, 409);
  } finally {
    await server.close();
  }
});
