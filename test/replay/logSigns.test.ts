// What default logs say about the run (analyzer/replay/logSigns.ts), found in
// the stored text blocks: the first record in seq order across sources, a
// needle on a traceback's continuation line citing the record's first line.
// Expectations from the reference: pd §2.3 (batch-line eras), §3.2 and §6
// (NIXL lines, four-field notif tag), hicache §1.1–§1.2 and §3.2 (start-up
// lines, the normal event loop).

import { test } from "node:test";
import assert from "node:assert/strict";
import { findSigns, type Sign } from "../../analyzer/replay/logSigns.js";
import { selectProfile } from "../../analyzer/replay/profileSelection.js";
import { eventRef } from "../../analyzer/replay/eventRefs.js";
import type { IncidentDb } from "../../store/db.js";
import { at, ingestCase } from "./incidents.js";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { openIncident } from "../../store/db.js";
import { ingestedCopy } from "../sharedIncident.js";
import { scratchDir } from "../scratchDir.js";

function cited(db: IncidentDb, signs: Sign[]): string[] {
  return signs.map((s) => {
    const { seq: _seq, why: _why, ...implies } = s;
    return `${at(eventRef(db, s.seq)!)} ${JSON.stringify(implies)}`;
  });
}

test("≤ v0.5.3 logs: period batch lines, a four-field notif tag and a normal event loop in a traceback", async () => {
  const { db } = await ingestCase("old-era-logs");
  assert.deepEqual(cited(db, findSigns(db)).sort(), [
    // decode-tp1 started NIXL and printed its first batch line before decode-tp0 did, and before prefill's NIXL lines.
    'decode-0/decode-tp1.log:1 {"backend":"nixl"}',
    'decode-0/decode-tp1.log:3 {"versionMax":"0.5.3"}',
    'prefill-0/prefill-tp0.log:2 {"versionMax":"0.5.3"}',
    'prefill-0/prefill-tp0.log:4 {"backend":"nixl"}',
    'prefill-0/prefill-tp0.log:4 {"versionMax":"0.5.11"}',
    'prefill-0/prefill-tp0.log:5 {"overlap":false}',
  ]);
  db.close();
});

test("an NSA HiCache start-up line gives HiCache on and the host index-K page stride", async () => {
  const { db } = await ingestCase("nsa-hicache-logs");
  assert.deepEqual(cited(db, findSigns(db)).sort(), [
    'prefill-0/prefill-tp0.log:1 {"hicache":true}',
    // NSATokenToKVPoolHost exists only for a model with an index-K cache.
    'prefill-0/prefill-tp0.log:2 {"hicache":true,"hostIndexKPageStride":8448,"indexK":true}',
    'prefill-0/prefill-tp0.log:3 {"backend":"nixl"}',
  ]);
  db.close();
});

test("a server_args start-up line states the backend, the overlap schedule and HiCache; the profile cites it instead of a default", async () => {
  const { db } = await ingestCase("server-args-logs");
  const serverArgs = findSigns(db).find((s) => s.parallelism !== undefined)!;
  assert.deepEqual(
    { backend: serverArgs.backend, overlap: serverArgs.overlap, hicache: serverArgs.hicache, parallelism: serverArgs.parallelism },
    { backend: "mooncake", overlap: false, hicache: true, parallelism: { role: "decode", statedIn: "server_args", tpSize: 8, dpSize: 1, ppSize: 1 } },
  );
  assert.equal(serverArgs.indexK, true, "model_path='deepseek-ai/DeepSeek-V3.2-Exp' is an NSA model");
  const { reasons } = selectProfile(db);
  for (const field of ["backend", "overlap", "hicache"] as const) {
    const r = reasons.find((x) => x.field === field)!;
    assert.equal(r.origin, "log", field);
    assert.match(r.why, /decode server_args line states .*disable_overlap_schedule=True, enable_hierarchical_cache=True/, field);
    assert.equal(r.evidence.length, 1, field);
  }
  assert.equal(reasons.find((x) => x.field === "overlap")!.value, false);
  db.close();
});

test("a launch command a terminal quotes (a bash job's line) states the backend, the parallelism and the overlap schedule; the profile cites it", async () => {
  const dir = scratchDir("kvrewind-launch-command-");
  writeFileSync(
    join(dir, "terminal.txt"),
    [
      "root@gpu-node-1:~# python3 -m sglang.launch_server --model-path /models/Qwen3-8B --disaggregation-mode=decode --tp 2 --disaggregation-transfer-backend nixl --disable-overlap-schedule > decode.log 2>&1 &",
      "[1] 48211",
      "[1]+  Killed                  python3 -m sglang.launch_server --model-path /models/Qwen3-8B --disaggregation-mode=decode --tp 2 --disaggregation-transfer-backend nixl --disable-overlap-schedule > decode.log 2>&1",
    ].join("\n") + "\n",
  );
  const db = openIncident(await ingestedCopy({ paths: [dir] }));
  const launch = findSigns(db).find((s) => s.parallelism !== undefined)!;
  assert.deepEqual(
    { backend: launch.backend, overlap: launch.overlap, parallelism: launch.parallelism },
    { backend: "nixl", overlap: false, parallelism: { role: "decode", statedIn: "the launch command", tpSize: 2 } },
  );
  const { reasons } = selectProfile(db);
  for (const field of ["backend", "overlap"] as const) {
    const r = reasons.find((x) => x.field === field)!;
    assert.equal(r.origin, "log", field);
    assert.equal(r.why, "the decode launch command states --disaggregation-transfer-backend nixl, --disable-overlap-schedule", field);
  }
  db.close();
});

test("the loaded model's class says whether it has index-K; a DeepseekV3 class alone cannot say", async () => {
  const signs = async (lines: string[]): Promise<boolean[]> => {
    const dir = scratchDir("kvrewind-model-class-");
    writeFileSync(join(dir, "decode-tp0.log"), lines.join("\n") + "\n");
    const db = openIncident(await ingestedCopy({ paths: [dir] }));
    const found = findSigns(db).flatMap((s) => (s.indexK === undefined ? [] : [s.indexK]));
    db.close();
    return found;
  };
  // SGLang's model_runner.py line, as real deployments print it.
  assert.deepEqual(await signs(["[2026-06-20 14:01:37 DP0 TP0] Load weight end. type=Qwen3ForCausalLM, dtype=torch.bfloat16, avail mem=16.00 GB, mem usage=7.08 GB."]), [false]);
  assert.deepEqual(await signs(["[2026-06-20 14:01:37 DP0 TP0] Load weight end. type=DeepseekV32ForCausalLM, dtype=torch.bfloat16, avail mem=38.62 GB, mem usage=39.18 GB."]), [true]);
  assert.deepEqual(await signs(["[2025-08-13 14:34:24 TP0] Load weight end. type=DeepseekV3ForCausalLM, dtype=torch.bfloat16, avail mem=80.84 GB, mem usage=94.50 GB."]), []);
});
