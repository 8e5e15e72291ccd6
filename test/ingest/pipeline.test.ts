import { test } from "node:test";
import assert from "node:assert/strict";
import { utimesSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ingest } from "../../ingest/pipeline.js";
import type { SourceSummary } from "../../ingest/sourceSummaries.js";
import { eventsInWindow, eventsOfRank, eventsOfRoom } from "../../store/read/events.js";
import { clockOffsets } from "../../store/read/incident.js";
import { listIngestedSources, listSources } from "../../store/read/sources.js";
import { eventRows, FR_DUMP, logStamp, probeTs, T0, tempDir, withDb, writeTree } from "./bundle.js";

const ROOM = "8972542885242963296";
const FAILED_ROOM = "5830149913321004417";

function mixedBundle(root: string): string {
  return writeTree(root, {
    "p0/prefill-tp0.log": [
      `${logStamp(T0 + 100_000)} TP0] got info room=${ROOM} agent_name='d0-tp3' required_dst_info_num=1`,
      `${logStamp(T0 + 110_000)} TP0] sending kvcache to d0-tp3 with notif ${ROOM}_kv_0_1_0`,
      `${logStamp(T0 + 125_000)} TP0] Prefill batch, #new-seq: 3, #new-token: 12288, #cached-token: 2048, token usage: 0.21, #running-req: 3, #queue-req: 5, #pending-token: 0, #bootstrap-req: 7, #inflight-req: 12, #optimistic-req: 0, cuda graph: False, input throughput (token/s): 48211.37`,
      `${logStamp(T0 + 900_000)} TP0] a message no template knows`,
      "",
    ].join("\n"),
    "d0/decode-tp3.log": [
      `${logStamp(T0 + 98_000)} DP0 TP3] Sending to prefill server with bootstrap room ${ROOM} is_dummy=False`,
      `${logStamp(T0 + 269_000_000)} DP0 TP3] Decode transfer failed for request rank=3 decode_req.req.rid='9f2c4c0e' decode_req.req.bootstrap_room=${FAILED_ROOM} with exception KVTransferError(bootstrap_room=${FAILED_ROOM}): Request ${FAILED_ROOM} timed out after 300.0s in KVPoll.WaitingForInput`,
      `${logStamp(T0 + 270_000_000)} DP0 TP3] Decode batch, #running-req: 64, #token: 181234, token usage: 0.43, pre-allocated usage: 0.06, #prealloc-req: 3, #transfer-req: 58, #retracted-req: 0, cuda graph: True, gen throughput (token/s): 3712.55, #queue-req: 0`,
      "",
    ].join("\n"),
    "d0/probe.jsonl": [
      `{"ts": ${probeTs(T0 + 112_000)}, "host": "d0", "role": "decode", "tp": 3, "ev": "kv.notify", "room": ${ROOM}, "tag": "${ROOM}_kv_0_1_0"}`,
      `{"ts": ${probeTs(T0 + 130_000)}, "host": "d0", "role": "decode", "tp": 3, "ev": "kernel.read", "room": ${ROOM}, "buffer": "index_k", "layer": 3, "pages": [[1024, 1088]], "consumer": -1}`,
      `{"ts": ${probeTs(T0 + 131_000)}, "host": "d0", "ev": `,
      "",
    ].join("\n"),
    "dumps/checksums.csv": [
      "ts,host,role,tp,side,room,buffer,layer,page,pos,algo,hash",
      `${probeTs(T0 + 105_000)},p0,prefill,0,prefill_store,${ROOM},index_k,3,512,0,crc32,9ae0daaf`,
      `${probeTs(T0 + 115_000)},d0,decode,3,decode_recv,${ROOM},index_k,3,1024,0,crc32,9ae0daaf`,
      "",
    ].join("\n"),
    "p0/nccl_trace_rank_0.json": FR_DUMP,
    "empty.log": "",
    "core.bin": Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01, 0x00, 0x00, 0x00]),
    "notes.txt": "restarted the decode pods at 10:20, see ticket\n",
  });
}

function byPath(sources: SourceSummary[], suffix: string): SourceSummary {
  const s = sources.find((x) => x.path.endsWith(suffix));
  assert.ok(s, `no source ${suffix}`);
  return s;
}

test("a directory of mixed real-format inputs: every source summarised, identities, provenance and rooms kept", async () => {
  const dir = tempDir("mixed");
  const bundle = mixedBundle(join(dir, "bundle"));
  const db = join(dir, "incident.db");
  const summary = await ingest({ db, paths: [bundle], host: "p0" });
  const s = summary.sources;

  const prefill = byPath(s, "p0/prefill-tp0.log");
  assert.deepEqual(
    [prefill.status, prefill.format, prefill.host, prefill.role, prefill.ranks, prefill.lines, prefill.events, prefill.unparsed, prefill.errorCount],
    ["ingested", "sglang-log", "p0", "prefill", ["prefill/tp0"], 4, 4, 1, 0],
  );
  const decode = byPath(s, "d0/decode-tp3.log");
  assert.deepEqual([decode.host, decode.role, decode.ranks, decode.events], ["d0", "decode", ["decode/dp0/tp3"], 3]);
  const probe = byPath(s, "d0/probe.jsonl");
  assert.deepEqual([probe.format, probe.host, probe.role, probe.lines, probe.events, probe.errorCount], ["probe-jsonl", "d0", "decode", 3, 2, 1]);
  assert.equal(probe.errors[0]!.line, 3);
  assert.match(probe.errors[0]!.message, /not JSON/);
  const dump = byPath(s, "dumps/checksums.csv");
  // The path says nothing; the first record says p0/prefill (each record keeps its own host).
  assert.deepEqual([dump.format, dump.host, dump.role, dump.events, dump.ranks], ["checksum-csv", "p0", "prefill", 2, ["decode/tp3", "prefill/tp0"]]);
  const fr = byPath(s, "p0/nccl_trace_rank_0.json");
  // Its content names neither host nor role: its folder names the machine, and the prefill logs in that folder its role.
  assert.deepEqual([fr.format, fr.host, fr.events, fr.ranks], ["flight-recorder", "p0", 5, ["prefill/tp0"]]);
  assert.deepEqual([byPath(s, "empty.log").status, byPath(s, "empty.log").reason], ["skipped", "empty file"]);
  assert.equal(byPath(s, "core.bin").status, "refused");
  assert.match(byPath(s, "core.bin").reason!, /binary/);
  // Text in no known format beside the logs is ingested line by line, nothing understood, nothing lost.
  const notes = byPath(s, "notes.txt");
  assert.deepEqual([notes.status, notes.format, notes.lines, notes.events, notes.unparsed, notes.inferred], ["ingested", "text", 1, 1, 1, 1]);
  assert.deepEqual(notes.unparsedShapes.map((u) => [u.shape, u.count, u.line]), [["restarted the decode pods at #:#, see ticket", 1, 1]]);
  // No date in it: its line is timeless, placed in the order before its host's dated lines (the --host flag names p0).
  assert.match(notes.timeOrigin!, /timeless \(time unknown\), placed in the order before host p0's first dated line/);
  assert.equal(notes.first, null);
  assert.equal(prefill.first, "2026-08-20T10:15:32.100000Z");
  assert.equal(prefill.last, "2026-08-20T10:15:32.900000Z");
  assert.equal(summary.eventsAdded, 17);

  withDb(db, (h) => {
    const rows = eventRows(h);
    assert.deepEqual(
      rows.map((r) => r.seq),
      rows.map((_, i) => i + 1),
    );
    const failed = rows.find((r) => r.kind === "pd.transfer_failed")!;
    assert.equal(failed.room, FAILED_ROOM);
    assert.equal(failed.line, 2);
    assert.match(failed.text, /timed out after 300\.0s in KVPoll\.WaitingForInput$/);
    // The room's history across logs, probe records and dumps, in global order.
    assert.deepEqual(
      eventsOfRoom(h, ROOM).map((e) => [e.kind, e.host, e.sourceId > 0]),
      [
        ["boot.metadata_sent", "d0", true],
        ["boot.got_info", "p0", true],
        ["checksum", "p0", true],
        ["xfer.notif_sent", "p0", true],
        ["kv.notify", "d0", true],
        ["checksum", "d0", true],
        ["kernel.read", "d0", true],
      ],
    );
    assert.deepEqual(
      eventsOfRank(h, { host: "d0", role: "decode", tp: 3 }).map((e) => [e.kind, e.line]),
      [
        ["boot.metadata_sent", 1],
        ["kv.notify", 1],
        ["checksum", 3],
        ["kernel.read", 2],
        ["pd.transfer_failed", 2],
        ["batch.decode", 3],
      ],
    );
    assert.deepEqual(
      eventsInWindow(h, T0 + 100_000, T0 + 111_000).map((e) => e.kind),
      ["boot.got_info", "checksum", "xfer.notif_sent"],
    );
    assert.deepEqual(clockOffsets(h), summary.clockOffsetsUs);
    // Every input has a row: what was not ingested is recorded with its reason, for the analysis to see.
    assert.equal(listIngestedSources(h).length, 6);
    const notIngested = listSources(h).filter((r) => r.status !== "complete");
    assert.deepEqual(
      notIngested.map((r) => [r.path.replace(/^.*bundle\//, ""), r.status]).sort(),
      [["core.bin", "refused"], ["empty.log", "skipped"]],
    );
    assert.match(notIngested.find((r) => r.path.endsWith("core.bin"))!.reason!, /binary/);
    // The events are one column block (17 events), with no table or index row per event.
    assert.equal(h.prepare("SELECT COUNT(*) FROM sqlite_master WHERE tbl_name = 'events'").pluck().get(), 0);
    assert.deepEqual(h.prepare("SELECT first_seq, last_seq, count FROM event_blocks").raw().all(), [[1, 17, 17]]);
    assert.equal(h.prepare("SELECT COUNT(*) FROM event_block_keys WHERE dim = 3 AND key = ?").pluck().get(ROOM), 1);
  });

  const again = await ingest({ db, paths: [bundle], host: "p0" });
  assert.equal(again.eventsAdded, 0);
  assert.equal(again.eventsTotal, 17);
  assert.deepEqual(
    again.sources.filter((x) => x.format !== null && x.status !== "refused").map((x) => x.status),
    ["duplicate", "duplicate", "duplicate", "duplicate", "duplicate", "duplicate"],
  );
  // The same skipped and refused inputs again add no rows: a repeated ingest is a no-op.
  withDb(db, (h) => assert.equal(listSources(h).length, 8));
});

test("a text file named on its own is ingested as text, its lines timeless: its modification time is no time of theirs", async () => {
  const dir = tempDir("named");
  const notes = writeTree(dir, { "notes.txt": "restarted the decode pods at 10:20\n" });
  const mtime = new Date("2026-08-20T10:25:00Z");
  utimesSync(join(notes, "notes.txt"), mtime, mtime);
  const summary = await ingest({ db: join(dir, "i.db"), paths: [join(notes, "notes.txt")] });
  const [s] = summary.sources;
  assert.deepEqual([s!.status, s!.format, s!.events, s!.unparsed, s!.first], ["ingested", "text", 1, 1, null]);
  assert.match(s!.timeOrigin!, /timeless .*no file of the incident has a dated line/);
});

test("glog stamps without a year, in an incident with no dated line, take the latest year that is not after the file's modification time", async () => {
  const dir = tempDir("stamp-year");
  const logs = writeTree(dir, {
    "node-3/trainer.log": [
      "[E329 19:15:11.775879730 ProcessGroupNCCL.cpp:565] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=2, OpType=ALLREDUCE, NumelIn=10, NumelOut=10, Timeout(ms)=10000) ran for 10028 milliseconds before timing out.",
      "E1204 08:00:01.000000 4101 ProcessGroupNCCL.cpp:1561] [PG 0 Rank 0] Exception hit in NCCL work: 2",
      "",
    ].join("\n"),
  });
  // Collected in December: March's line is the last March before it, not the next one; December's is this December's.
  const mtime = new Date("2026-12-05T09:00:00Z");
  utimesSync(join(logs, "node-3/trainer.log"), mtime, mtime);
  const db = join(dir, "i.db");
  const summary = await ingest({ db, paths: [logs], tz: "UTC" });
  assert.match(summary.sources[0]!.timeOrigin ?? "", /modification time/);
  const stamps = withDb(db, eventRows).map((r) => new Date(r.ts_us / 1000).toISOString());
  assert.deepEqual(stamps, ["2026-03-29T19:15:11.775Z", "2026-12-04T08:00:01.000Z"]);
});

test("adding sources later gives the same history as ingesting them together", async () => {
  const dir = tempDir("incremental");
  const bundle = mixedBundle(join(dir, "bundle"));
  const together = join(dir, "together.db");
  const stepwise = join(dir, "stepwise.db");
  const first = [join(bundle, "d0")];
  const second = [join(bundle, "p0"), join(bundle, "dumps")];
  await ingest({ db: together, paths: [...first, ...second], host: "p0" });
  await ingest({ db: stepwise, paths: first, host: "p0" });
  withDb(stepwise, (h) => h.prepare("INSERT INTO findings (id, rule, severity, verdict, title, body) VALUES ('F1', 'transfer-stall', 'high', 'violated', 't', '{}')").run());
  const second2 = await ingest({ db: stepwise, paths: second, host: "p0" });
  assert.equal(second2.eventsAdded, 11);
  const a = withDb(together, eventRows);
  const b = withDb(stepwise, eventRows);
  assert.equal(b.length, 16);
  assert.deepEqual(b, a);
  // Seqs changed, so the old analysis is gone.
  assert.equal(withDb(stepwise, (h) => h.prepare("SELECT COUNT(*) FROM findings").pluck().get()), 0);
});

test("the load's parse workers share the sources: one, two or three of them give the same history", async () => {
  const dir = tempDir("workers");
  const incident = fileURLToPath(new URL("../../../fixtures/incidents/stale-slot-reuse", import.meta.url));
  const histories = [];
  for (const loadWorkers of [1, 2, 3]) {
    const db = join(dir, `w${loadWorkers}.db`);
    const summary = await ingest({ db, paths: [incident], loadWorkers });
    assert.ok(summary.sources.filter((s) => s.status === "ingested").length >= 4);
    histories.push({ rows: withDb(db, eventRows), sources: summary.sources.map((s) => [s.path, s.events, s.first, s.last]) });
  }
  assert.ok(histories[0]!.rows.length > 1000);
  assert.deepEqual(histories[1], histories[0]);
  assert.deepEqual(histories[2], histories[0]);
});

test("--tz: log times are read in the zone they were written in", async () => {
  const dir = tempDir("tz");
  const bundle = writeTree(join(dir, "b"), {
    "d0/decode-tp0.log": "[2026-08-20 12:15:32.500 TP0] Sending to prefill server with bootstrap room 42 is_dummy=False\n",
  });
  const summary = await ingest({ db: join(dir, "i.db"), paths: [bundle], tz: "Europe/Berlin" });
  assert.equal(summary.sources[0]!.first, "2026-08-20T10:15:32.500000Z");
});
