// SGLang crash dumps (docs/telemetry.md "Crash dumps"): the traces-wedge
// bundle's decode dump (test/bundles/make_crash_dump.py) through the real
// ingest into a real database, a dump of another SGLang version, and the
// exact reading of pickled integers.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { ParsedEvent, ParseIssue } from "../../domain/event.js";
import { dumpTimeFromName, isCrashDumpPickle, sglangCrashDump } from "../../ingest/formats/crashDump.js";
import { isFlightRecorderPickle } from "../../ingest/formats/flightRecorder.js";
import { detectBinaryFormat } from "../../ingest/formats/index.js";
import { readPickle } from "../../ingest/formats/pickleData.js";
import { ingest } from "../../ingest/pipeline.js";
import { iterateEvents } from "../../store/read/events.js";
import { listSources } from "../../store/read/sources.js";
import { tempDir, withDb, writeTree } from "./bundle.js";

const DUMP = readFileSync(new URL("../../../test/bundles/traces-wedge/d0/crash_dump_2026-11-20_04-20-00.pkl", import.meta.url));
const OTHER = readFileSync(new URL("../../../test/ingest/fixtures/other-sglang/crash_dump_2026-11-20_04-20-00.pkl", import.meta.url));
const FR_PICKLE = readFileSync(new URL("../../../test/ingest/fixtures/nccl_trace_rank_1", import.meta.url));
/** 2026-11-20T03:38:00Z, 03:40:00Z and 04:20:00Z in µs. */
const T38 = 1_795_145_880_000_000;
const T40 = 1_795_146_000_000_000;
const CRASH = 1_795_148_400_000_000;

function parse(bytes: Buffer, path: string): { events: ParsedEvent[]; issues: ParseIssue[] } {
  const events: ParsedEvent[] = [];
  const issues: ParseIssue[] = [];
  sglangCrashDump.parseBytes!(bytes, { sourcePath: path, tzOffsetMinutes: 0 }, events, issues);
  return { events, issues };
}

test("detection by content: a crash dump and a Flight Recorder pickle each claim only their own", () => {
  assert.equal(detectBinaryFormat(DUMP)?.name, "sglang-crash-dump");
  assert.equal(detectBinaryFormat(OTHER)?.name, "sglang-crash-dump");
  assert.equal(detectBinaryFormat(FR_PICKLE)?.name, "flight-recorder-pickle");
  assert.deepEqual([isFlightRecorderPickle(DUMP), isCrashDumpPickle(FR_PICKLE)], [false, false]);
});

test("the decode server's dump: the crash, the two recent finished requests and the three in flight, rooms exact", async () => {
  const dir = tempDir("crash-dump");
  writeTree(dir, { "in/d0/crash_dump_2026-11-20_04-20-00.pkl": DUMP });
  const db = join(dir, "i.db");
  await ingest({ db, paths: [join(dir, "in")] });
  const { events, sources } = withDb(db, (h) => ({ events: [...iterateEvents(h)], sources: listSources(h) }));
  assert.deepEqual(sources.map((s) => [s.format, s.host, s.role, s.errors]), [["sglang-crash-dump", "d0", "decode", []]]);
  assert.deepEqual(
    events.map((e) => [e.kind, e.tsUs, e.line, e.host, e.role, e.room, e.rid, e.attrs?.finished, e.attrs?.createdUs, e.attrs?.finishedUs, e.attrs?.promptTokens, e.attrs?.outputTokens, e.attrs?.finishReason]),
    [
      ["crash.request", T38 + 1000, 2, "d0", "decode", "1111111111111111111", "a1f0c2d4e6b8091a2b3c4d5e6f708192", true, T38 + 1000, T38 + 1_530_000, 812, 16, "length"],
      ["crash.request", T38 + 801_000, 3, "d0", "decode", "2222222222222222222", "b2e1d3c5f7a9102b3c4d5e6f70819203", true, T38 + 801_000, T38 + 2_000_000, 640, 16, "length"],
      ["crash.request", T40 + 1000, 4, "d0", "decode", "8972542885242963296", "c3f2e4d6a8b0213c4d5e6f7081920314", false, T40 + 1000, undefined, undefined, undefined, undefined],
      ["crash.request", T40 + 1_001_000, 5, "d0", "decode", "5830149913321000001", "d4a3f5e7b9c1324d5e6f708192031425", false, T40 + 1_001_000, undefined, undefined, undefined, undefined],
      ["crash.request", T40 + 2_001_000, 6, "d0", "decode", "7000000000000000007", "e5b4a6f8c0d2435e6f70819203142536", false, T40 + 2_001_000, undefined, undefined, undefined, undefined],
      ["crash.dump", CRASH, 1, "d0", "decode", null, null, undefined, undefined, undefined, undefined, undefined, undefined],
    ],
  );
  // The dump and each request are records of their own: each keeps its own text.
  assert.deepEqual(
    events.map((e) => JSON.parse(e.text)).map((t) => (Array.isArray(t) ? "request" : Object.keys(t).includes("server_args") ? "dump" : "?")),
    ["request", "request", "request", "request", "request", "dump"],
  );
  const dump = events.find((e) => e.kind === "crash.dump")!.attrs!;
  assert.deepEqual([dump.dumpedAtUs, dump.requests, dump.unfinished], [CRASH, 5, 3]);
  assert.match(String(dump.launchCommand), /^python3 -m sglang\.launch_server --model-path deepseek-ai\/DeepSeek-V3\.2 --disaggregation-mode decode /);
  const args = dump.serverArgs as Record<string, unknown>;
  assert.deepEqual([args.__class__, args.model_path, args.tp_size, args.disaggregation_mode, args.random_seed], ["sglang.srt.server_args.ServerArgs", "deepseek-ai/DeepSeek-V3.2", 8, "decode", 933244331]);
  // A request's text is the dumped tuple as read, SGLang's class as plain data.
  const wedged = JSON.parse(events[2]!.text) as [Record<string, unknown>, object, number, number];
  assert.deepEqual([wedged[0].__class__, wedged[0].bootstrap_room, wedged[0].bootstrap_host, wedged[1], wedged[3]], ["sglang.srt.managers.io_struct.GenerateReqInput", "8972542885242963296", "10.0.0.11", {}, CRASH / 1e6]);
});

test("bad input: a dump of another SGLang version keeps its fields as found and its unknown classes as plain data", () => {
  const { events, issues } = parse(OTHER, "other-sglang/crash_dump_2026-11-20_04-20-00.pkl");
  assert.deepEqual(issues, []);
  // No unfinished request has a stamp (3-tuples, a 2-tuple): the dump time is the file name's.
  assert.deepEqual(events.map((e) => [e.kind, e.tsUs, e.line, e.room, e.rid, e.role, e.attrs?.finished]), [
    ["crash.request", T40 + 1000, 2, undefined, undefined, undefined, false],
    ["crash.dump", CRASH, 1, undefined, undefined, undefined, undefined],
    ["crash.request", CRASH, 3, undefined, undefined, undefined, false],
  ]);
  const first = JSON.parse(events[0]!.text) as [Record<string, unknown>];
  assert.deepEqual(first[0], {
    __class__: "sglang.srt.managers.io_struct.GenerateReqInput",
    text: "prompt",
    request_id: "c3f2e4d6a8b0213c4d5e6f7081920314",
    room: "8972542885242963296",
    routing: { __class__: "sglang.srt.router.hints.RouterHint", prefill_url: "http://10.0.0.11:30000", attempt: 2 },
  });
  const dump = events[1]!;
  assert.deepEqual(dump.attrs?.serverArgs, {
    __class__: "sglang.srt.server_args.ServerArgs",
    model: "deepseek-ai/DeepSeek-V3.2",
    disagg_mode: "decode",
    load_balance_method: { __class__: "sglang.srt.server_args.LoadBalanceMethod", __args__: ["round_robin"] },
  });
  assert.equal(dump.attrs?.launchCommand, undefined);
  assert.deepEqual(JSON.parse(dump.text).version, { __class__: "sglang.version_info.VersionInfo", version: "0.4.9.post3" });
});

test("bad input: a cut dump is one issue, nothing placed", () => {
  const { events, issues } = parse(DUMP.subarray(0, 900), "d0/crash_dump_2026-11-20_04-20-00.pkl");
  assert.deepEqual(events, []);
  assert.equal(issues.length, 1);
  assert.match(issues[0]!.message, /crash dump pickle could not be read: pickle (cut at byte \d+|has no STOP opcode)/);
});

test("pickled integers come back exact: 63-bit rooms, negatives, protocol 0's text longs", () => {
  // pickle.dumps([8972542885242963296, -2**40, 2**53 + 1, 7], protocol=2), then protocol=0 without 2**53 + 1.
  const p2 = Buffer.from("80025d7100288a086085dd2e37e0847c8a060000000000ff8a07010000000000204b07652e", "hex");
  assert.deepEqual(readPickle(p2), ["8972542885242963296", -(2 ** 40), "9007199254740993", 7]);
  const p0 = Buffer.from("(lp0\nL8972542885242963296L\naL-1099511627776L\naI7\na.", "latin1");
  assert.deepEqual(readPickle(p0), ["8972542885242963296", -(2 ** 40), 7]);
  assert.equal(dumpTimeFromName("d0/crash_dump_2026-11-20_05-20-00.pkl", 60), CRASH);
});
