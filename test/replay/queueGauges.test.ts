// The batch lines' queue gauges that time travel shows as inferred
// (analyzer/replay/queueGauges.ts): through the checkpoints the derive step
// stores they are, at every point, what a read of every batch line gives,
// on fixture and hand-written incidents and on a pipeline-parallel one whose
// lines lack fields and whose ranks start late and stop early; before the
// first batch line there are none; a file derived before the checkpoints
// existed answers the same and gets them, alone, from its next derive step.

import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { queueGauges, storedGaugesCurrent, storeQueueGauges, type GaugeReading } from "../../analyzer/replay/queueGauges.js";
import { modelOptions } from "../../analyzer/replay/modelOptions.js";
import { rankLabel } from "../../analyzer/model/ranks.js";
import { stateAt } from "../../analyzer/replay/timeTravel.js";
import { ingest } from "../../ingest/pipeline.js";
import { openIncident, type IncidentDb } from "../../store/db.js";
import { iterateEvents } from "../../store/read/events.js";
import { deriveIncident } from "../../analyzer/derive.js";
import { fixtureInputs, ingestedCopy, REPO_ROOT, type IncidentInputs } from "../sharedIncident.js";
import { scratchDir } from "../scratchDir.js";

const FIELDS: Record<string, string[]> = { "batch.decode": ["#transfer-req", "#prealloc-req"], "batch.prefill": ["#inflight-req", "#bootstrap-req"] };

/**
 * The gauges after each of `seqs` the obvious way: every event from the
 * start, each (rank, gauge)'s last value, decode's pairs listed before
 * prefill's; one walk over the events for all the points.
 */
function byEveryEvent(db: IncidentDb, seqs: readonly number[]): Map<number, string[]> {
  const qualify = modelOptions(db).qualifyHosts ?? false;
  const last = { "batch.decode": new Map<string, string>(), "batch.prefill": new Map<string, string>() } as Record<string, Map<string, string>>;
  const shownNow = (): string[] => [...last["batch.decode"]!.values(), ...last["batch.prefill"]!.values()];
  const points = [...new Set(seqs)].sort((a, b) => a - b);
  const out = new Map<number, string[]>();
  let next = 0;
  for (const ev of iterateEvents(db)) {
    for (; next < points.length && points[next]! < ev.seq; next++) out.set(points[next]!, shownNow());
    const fields = FIELDS[ev.kind];
    if (!fields) continue;
    const rank = rankLabel(ev.host, ev.role ?? (ev.kind === "batch.decode" ? "decode" : "prefill"), ev.pp, ev.tp, qualify);
    for (const f of fields) {
      const v = ev.attrs?.[f];
      if (typeof v === "number") last[ev.kind]!.set(`${rank}|${f}`, `${rank} ${f}=${v} @${ev.seq}/${ev.tsUs}`);
    }
  }
  for (; next < points.length; next++) out.set(points[next]!, shownNow());
  return out;
}

/** The gauges after the last event, the obvious way. */
function atEnd(db: IncidentDb): string[] {
  return byEveryEvent(db, [Infinity]).get(Infinity)!;
}

const shown = (rs: GaugeReading[]): string[] => rs.map((r) => `${r.rank} ${r.gauge}=${r.value} @${r.seq}/${r.tsUs}`);

/** Points worth checking: before the first event, around every block's edge and every batch line of the first and last few, the end, and a stride. */
function points(db: IncidentDb): number[] {
  const edges = db.prepare("SELECT first_seq, last_seq FROM event_blocks ORDER BY first_seq").all() as { first_seq: number; last_seq: number }[];
  const batch = [...iterateEvents(db)].filter((e) => FIELDS[e.kind]).map((e) => e.seq);
  const last = edges[edges.length - 1]!.last_seq;
  const out = new Set([-1, 0, last, last + 5]);
  for (const e of edges) for (const s of [e.first_seq - 1, e.first_seq, e.last_seq, e.last_seq + 1]) out.add(s);
  for (const s of [...batch.slice(0, 6), ...batch.slice(-6)]) for (const d of [-1, 0, 1]) out.add(s + d);
  for (let s = 1; s <= last; s += Math.max(1, Math.floor(last / 150))) out.add(s);
  return [...out].sort((a, b) => a - b);
}

/** A private copy of the inputs' incident, derived. */
async function derived(inputs: IncidentInputs): Promise<IncidentDb> {
  const db = openIncident(await ingestedCopy(inputs));
  deriveIncident(db);
  return db;
}

/** A pipeline-parallel deployment's batch lines: PP0 and PP1 on each side; decode lines with both gauges, without #prealloc-req, or without any; decode's PP1 stops early, prefill's PP1 starts late. */
function writePipelineParallel(dir: string, lines: number): void {
  const ts = (i: number): string => {
    const ms = 1000 + i * 50;
    const s = Math.floor(ms / 1000);
    return `2026-06-11 14:${String(Math.floor(s / 60) % 60).padStart(2, "0")}:${String(s % 60).padStart(2, "0")}.${String(ms % 1000).padStart(3, "0")}`;
  };
  const args = (mode: string): string =>
    `[2026-06-11 14:00:00] server_args=ServerArgs(model_path='deepseek-ai/DeepSeek-V3.2', tp_size=1, pp_size=2, dp_size=1, disaggregation_mode='${mode}', disaggregation_transfer_backend='nixl', disaggregation_bootstrap_port=8998, log_level='info')`;
  const decode = [args("decode")];
  const prefill = [args("prefill")];
  for (let i = 0; i < lines; i++) {
    const pp = i % 2;
    const n = (i * 7919) % 6;
    if (i % 3 === 0) {
      if (pp === 1 && i > lines * 0.6) continue;
      const head = `[${ts(i)} PP${pp} TP0] Decode batch, #running-req: 3, #token: 9120, token usage: 0.02, `;
      if (i % 7 === 0) decode.push(`${head}gen throughput (token/s): 310.20, #queue-req: 0`);
      else if (i % 5 === 0) decode.push(`${head}#transfer-req: ${n}, cuda graph: True, gen throughput (token/s): 310.20, #queue-req: 0`);
      else decode.push(`${head}pre-allocated usage: 0.00, #prealloc-req: ${n % 2}, #transfer-req: ${n}, #retracted-req: 0, cuda graph: True, gen throughput (token/s): 310.20, #queue-req: 0`);
    } else {
      if (pp === 1 && i < lines * 0.25) continue;
      prefill.push(
        `[${ts(i)} PP${pp} TP0] Prefill batch, #new-seq: 1, #new-token: 304, #cached-token: 0, token usage: 0.00, #running-req: 1, #queue-req: 0, #pending-token: 0, #bootstrap-req: ${n % 4}, #inflight-req: ${n % 3}, #optimistic-req: 0, cuda graph: False, input throughput (token/s): 16699.63`,
      );
    }
  }
  for (const [host, file, text] of [["d0", "decode-tp0.log", decode], ["p0", "prefill-tp0.log", prefill]] as const) {
    mkdirSync(join(dir, host), { recursive: true });
    writeFileSync(join(dir, host, file), text.join("\n") + "\n");
  }
}

/** Checkpoints every `everyBlocks` blocks, then the gauges at every point: the checkpoints', the full read's and every event's agree. */
function assertAgree(db: IncidentDb, everyBlocks: number, name: string): void {
  const options = modelOptions(db);
  const everyLine = queueGauges(db, options);
  storeQueueGauges(db, options, everyBlocks);
  assert.ok(storedGaugesCurrent(db, options));
  const checkpoints = queueGauges(db, options);
  const seqs = points(db);
  const expected = byEveryEvent(db, seqs);
  for (const seq of seqs) {
    const want = expected.get(seq)!;
    assert.deepEqual(shown(everyLine.at(seq)), want, `${name}: every batch line, seq ${seq}`);
    assert.deepEqual(shown(checkpoints.at(seq)), want, `${name}: checkpoints every ${everyBlocks} block(s), seq ${seq}`);
  }
}

test("through the checkpoints, the gauges at every point are what every batch line gives, on fixture and hand-written incidents", async () => {
  const cases = [
    { name: "healthy fixture", inputs: fixtureInputs("healthy") },
    { name: "decode-only-wedge", inputs: { paths: ["test/bundles/decode-only-wedge"], cwd: REPO_ROOT } },
    { name: "nccl-watchdog", inputs: { paths: ["test/bundles/nccl-watchdog"], cwd: REPO_ROOT } },
  ];
  for (const c of cases) {
    const db = await derived(c.inputs);
    assert.ok(atEnd(db).length > 0, `${c.name} has batch lines`);
    for (const every of [1, 8]) assertAgree(db, every, c.name);
    db.close();
  }
});

test("pipeline-parallel ranks, lines without some gauges, ranks that start late and stop early: the checkpoints agree with every line", async () => {
  const dir = scratchDir("kvrewind-pp-gauges-");
  writePipelineParallel(join(dir, "inputs"), 14_000);
  const path = join(dir, "incident.db");
  await ingest({ db: path, paths: [join(dir, "inputs")] });
  const db = openIncident(path);
  deriveIncident(db);
  const blocks = db.prepare("SELECT COUNT(*) FROM event_blocks").pluck().get() as number;
  assert.ok(blocks >= 3, `${blocks} blocks`);
  const end = atEnd(db);
  assert.deepEqual(
    end.map((r) => r.split(" ")[0] + " " + r.split(" ")[1]!.split("=")[0]),
    ["decode/pp1/tp0 #transfer-req", "decode/pp1/tp0 #prealloc-req", "decode/tp0 #transfer-req", "decode/tp0 #prealloc-req", "prefill/tp0 #inflight-req", "prefill/tp0 #bootstrap-req", "prefill/pp1/tp0 #inflight-req", "prefill/pp1/tp0 #bootstrap-req"],
    "each PP rank its own gauges, decode's first, in the order the lines first name them (decode's first line with a gauge is PP1's)",
  );
  for (const every of [1, 2, 8]) assertAgree(db, every, `pp, every ${every}`);
  const gauges = queueGauges(db, modelOptions(db));
  assert.deepEqual(gauges.at(-1), [], "before the first event");
  assert.deepEqual(gauges.at(1), [], "before the first batch line (seq 1 is a server_args line)");
  const early = gauges.at(6).map((r) => r.rank);
  assert.ok(!early.includes("prefill/pp1/tp0"), "prefill's PP1 has no batch line yet");
  db.close();
});

test("a file derived before the checkpoints existed answers the same, and its next derive step stores them alone", async () => {
  const db = await derived(fixtureInputs("healthy"));
  const last = db.prepare("SELECT MAX(last_seq) FROM event_blocks").pluck().get() as number;
  const seqs = [1, 40, Math.floor(last / 3), Math.floor(last / 2), last - 1, last];
  const withCheckpoints = seqs.map((seq) => stateAt(db, { seq }));
  assert.ok(withCheckpoints.some((v) => v.queues.some((q) => q.inferred)), "some point shows an inferred queue");
  db.prepare("DELETE FROM meta WHERE key = 'queue_gauges'").run();
  const snapshots = db.prepare("SELECT value FROM meta WHERE key = 'snapshots'").pluck().get();
  const old = openIncident(db.name, { readonly: true });
  assert.equal(storedGaugesCurrent(old, modelOptions(old)), false);
  assert.deepEqual(
    seqs.map((seq) => stateAt(old, { seq })),
    withCheckpoints,
  );
  old.close();
  assert.equal(deriveIncident(db), undefined, "no replay: the snapshots and timeline were current");
  assert.ok(storedGaugesCurrent(db, modelOptions(db)));
  assert.equal(db.prepare("SELECT value FROM meta WHERE key = 'snapshots'").pluck().get(), snapshots);
  db.close();
});
