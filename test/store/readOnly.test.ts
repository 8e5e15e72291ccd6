// Readers open the incident read-only (DESIGN.md "Canonical store"): the
// derive step after ingest stores what they would otherwise compute (version
// signs, snapshots, timeline columns), and time travel, query, export, check,
// diff and the web UI's reads then only read. On a file whose permissions are
// read-only they all succeed, and the file's bytes do not change.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { getMetaJson, openIncident } from "../../store/db.js";
import { scratchDir } from "../scratchDir.js";
import { fixtureTarGz, getJson, startTestServer, uploadFiles, waitForIncident } from "../ui/serverHarness.js";
import { KVREWIND_CLI } from "../kvrewindCli.js";

const MAIN = KVREWIND_CLI;
const WEDGE = fileURLToPath(new URL("../../../fixtures/incidents/nixl-abort-wedge/", import.meta.url));

function kvrewind(...args: string[]): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [MAIN, ...args], { encoding: "utf8" });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function sha256(path: string): string {
  return createHash("sha256").update(readFileSync(path)).digest("hex");
}

test("ingest derives once; replay --at, replay, query, export, check and diff then read a chmod 444 file without changing a byte", () => {
  const dir = scratchDir("kvrewind-readonly-");
  const path = join(dir, "incident.db");
  const ingested = kvrewind("ingest", WEDGE, "--db", path, "--json");
  assert.equal(ingested.code, 0, ingested.err);
  const db = openIncident(path, { readonly: true });
  const signs = getMetaJson<{ fingerprint: string; signs: { why: string }[] }>(db, "profile_signs");
  assert.ok(signs && signs.signs.some((s) => /NIXL/.test(s.why)), "the version signs are stored");
  assert.ok(getMetaJson<{ profile: string }>(db, "snapshots")?.profile.includes('"backend":"nixl"'), "the snapshots of the chosen profile are stored");
  assert.ok((db.prepare("SELECT COUNT(*) FROM timeline_columns").pluck().get() as number) > 1, "the timeline columns are stored");
  db.close();

  chmodSync(path, 0o444);
  const before = sha256(path);
  const runs = [
    ["replay", path, "--at", "40", "--json"],
    ["replay", path, "--at", "2026-06-20T14:05:29.870Z"],
    ["replay", path, "--json"],
    ["query", path, "SELECT kind, COUNT(*) AS n FROM events GROUP BY kind ORDER BY n DESC"],
    ["export", path, "--format", "chrome-json", "--out", join(dir, "trace.json")],
    ["check", path, "page-not-reused-in-flight", "--json"],
    ["diff", path, path, "--json"],
  ];
  for (const args of runs) {
    const run = kvrewind(...args);
    assert.ok(run.code === 0 || (args[0] === "check" && run.code === 1), `${args.join(" ")}: exit ${run.code}: ${run.err}`);
    assert.ok(run.out.length > 0 || args[0] === "export", args.join(" "));
    assert.equal(sha256(path), before, `${args.join(" ")} left the file as it was`);
  }
  assert.ok(readFileSync(join(dir, "trace.json"), "utf8").startsWith("{"), "export wrote its trace");
  const state = JSON.parse(kvrewind("replay", path, "--at", "40", "--json").out) as { profile: { profile: { backend: string } } };
  assert.equal(state.profile.profile.backend, "nixl");
});

test("the web UI's reads and time travel read a chmod 444 incident file without changing a byte", async () => {
  const first = await startTestServer();
  const up = await uploadFiles(first, [{ name: "wedge.tar.gz", content: await fixtureTarGz("nixl-abort-wedge") }]);
  assert.equal(up.status, 202, JSON.stringify(up.body));
  assert.equal((await waitForIncident(first, "wedge"))["status"], "ready");
  await first.close();
  const path = join(first.dataDir, "incidents", "wedge", "incident.db");
  chmodSync(path, 0o444);
  const before = sha256(path);

  const second = await startTestServer({ dataDir: first.dataDir });
  try {
    const lanes = await getJson(second, "/api/incidents/wedge/lanes");
    assert.equal(lanes.status, 200, lanes.text);
    for (const route of ["/api/incidents/wedge/state?seq=40", "/api/incidents/wedge/step?seq=40&dir=next&by=rank", "/api/incidents/wedge/events/40", "/api/incidents/wedge/findings", "/api/incidents/wedge/query?sql=SELECT%20COUNT(*)%20FROM%20events"]) {
      const r = await getJson(second, route);
      assert.equal(r.status, 200, `${route}: ${r.text}`);
    }
  } finally {
    await second.close();
  }
  assert.equal(sha256(path), before);
});
