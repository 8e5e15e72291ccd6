import { test } from "node:test";
import assert from "node:assert/strict";
import type { ParsedEvent, ParseIssue } from "../../domain/event.js";
import { probeJsonl } from "../../ingest/formats/probeJsonl.js";
import { detectFormat } from "../../ingest/formats/index.js";

function parse(lines: string[]): { events: ParsedEvent[]; issues: ParseIssue[] } {
  const parser = probeJsonl.createParser({ sourcePath: "p0/probe.jsonl", tzOffsetMinutes: 0 });
  const events: ParsedEvent[] = [];
  const issues: ParseIssue[] = [];
  lines.forEach((l, i) => parser.line(l, i + 1, events, issues));
  parser.end(events, issues);
  return { events, issues };
}

test("a kv.post record: float seconds to exact microseconds, 13-digit room, one page range as its hull", () => {
  const line =
    '{"ts": 1764421512.123456, "host": "p0", "role": "prefill", "dp": 0, "pp": 0, "tp": 3, "ev": "kv.post", "room": 5830149913321, "chunk": 2, "last": false, "pages": [[1024, 1088]], "bytes": 1048576, "queue": 1}';
  const { events, issues } = parse([line]);
  assert.deepEqual(issues, []);
  assert.deepEqual(events, [
    {
      tsUs: 1764421512123456,
      line: 1,
      kind: "kv.post",
      host: "p0",
      role: "prefill",
      dp: 0,
      pp: 0,
      tp: 3,
      room: "5830149913321",
      chunk: 2,
      pageLo: 1024,
      pageHi: 1088,
      attrs: { last: false, bytes: 1048576, queue: 1 },
      text: line,
    },
  ]);
});

test("a 19-digit room and an integer-nanosecond ts are read without rounding", () => {
  const { events } = parse([
    '{"ts": 1764421512123456789, "host": "d0", "role": "decode", "tp": 0, "ev": "kv.notify", "room": 8972542885242963296, "tag": "8972542885242963296_kv_2_1_0"}',
  ]);
  assert.equal(events[0]!.room, "8972542885242963296");
  assert.equal(events[0]!.tsUs, 1764421512123456);
  // The tag stays as written, its digits untouched; its fields are decoded beside it (docs/protocol.md §6:
  // {room}_kv_{chunk}_{is_last}_{src}): chunk 2 to its column, the last chunk, from source rank 0.
  assert.deepEqual(events[0]!.attrs, { tag: "8972542885242963296_kv_2_1_0", tagKind: "kv", isLast: true, src: 0 });
  assert.equal(events[0]!.chunk, 2);
});

test("a kv.notify tag is decoded once, when the record is read: its room and chunk win over the record's, which are kept", () => {
  const { events } = parse([
    '{"ts": 1764421512.5, "host": "d0", "role": "decode", "tp": 1, "ev": "kv.notify", "room": 5830149913321, "tag": "5830149913321_state_3_0"}',
    '{"ts": 1764421512.6, "host": "d0", "role": "decode", "tp": 1, "ev": "kv.notify", "room": 5830149913321, "chunk": 4, "tag": "5830149913399_kv_1_0_3_part_0_2"}',
    '{"ts": 1764421512.7, "host": "d0", "role": "decode", "tp": 1, "ev": "kv.notify", "room": 5830149913321, "src": 2, "status": 4}',
    '{"ts": 1764421512.8, "host": "d0", "role": "decode", "tp": 1, "ev": "kv.notify", "room": 5830149913321, "tag": "5830149913321_kv_x_1"}',
  ]);
  assert.deepEqual([events[0]!.room, events[0]!.chunk, events[0]!.attrs], ["5830149913321", undefined, { tag: "5830149913321_state_3_0", tagKind: "state", src: 3, component: 0 }]);
  assert.deepEqual(
    [events[1]!.room, events[1]!.chunk, events[1]!.attrs],
    ["5830149913399", 1, { tag: "5830149913399_kv_1_0_3_part_0_2", room: "5830149913321", chunk: 4, tagKind: "kv_part", isLast: false, src: 3, part: 0, parts: 2 }],
  );
  assert.deepEqual(events[2]!.attrs, { src: 2, status: 4 }, "a Mooncake status carries no tag");
  assert.deepEqual([events[3]!.room, events[3]!.attrs], ["5830149913321", { tag: "5830149913321_kv_x_1" }], "a tag of none of the §6 forms is kept as written");
});

test("seconds with more digits than a double holds are truncated to the microsecond, not rounded", () => {
  const { events } = parse(['{"ts": 1764421512.1234569999, "ev": "sched.iter", "iter": 7, "branch": "on_idle"}']);
  assert.equal(events[0]!.tsUs, 1764421512123456);
  assert.deepEqual(events[0]!.attrs, { iter: 7, branch: "on_idle" });
});

test("several page ranges: hull in the columns, the full list kept in attrs", () => {
  const { events } = parse([
    '{"ts": 1764421512.5, "host": "d0", "role": "decode", "tp": 1, "ev": "kernel.read", "buffer": "index_k", "layer": 12, "pages": [[2048, 2050], [1024, 1088]], "room": "8972542885242963296", "consumer": -1}',
  ]);
  const ev = events[0]!;
  assert.equal(ev.pageLo, 1024);
  assert.equal(ev.pageHi, 2050);
  assert.equal(ev.layer, 12);
  assert.equal(ev.room, "8972542885242963296");
  assert.deepEqual(ev.attrs, { pages: [[2048, 2050], [1024, 1088]], buffer: "index_k", consumer: -1 });
});

test("kv.poll keeps local and reduced and takes the reduced value as its KVPoll state", () => {
  const { events } = parse(['{"ts": 1764421512.5, "host": "d0", "role": "decode", "tp": 2, "ev": "kv.poll", "room": 77, "local": 4, "reduced": 2}']);
  assert.equal(events[0]!.state, 2);
  assert.deepEqual(events[0]!.attrs, { local: 4, reduced: 2 });
});

test("kv.timeout with a KVPoll name as its state", () => {
  const { events } = parse(['{"ts": 1764421512.5, "ev": "kv.timeout", "room": 77, "state": "WaitingForInput", "after_s": 300.0}']);
  assert.equal(events[0]!.state, 2);
  assert.equal(events[0]!.attrs?.after_s, 300);
});

test("unknown events and fields are kept, never rejected", () => {
  const { events, issues } = parse(['{"ts": 1764421512.5, "ev": "custom.thing", "host": "p0", "weird": {"nested": [1, 2]}, "flag": true}']);
  assert.deepEqual(issues, []);
  assert.equal(events[0]!.kind, "custom.thing");
  assert.deepEqual(events[0]!.attrs, { weird: { nested: [1, 2] }, flag: true });
});

test("a config record keeps its settings in attrs", () => {
  const { events } = parse([
    '{"ts": 1764421500.0, "host": "p0", "role": "prefill", "ev": "config", "backend": "nixl", "version": "0.5.14", "index_k_dtype": "bf16", "page_size": 64, "hicache": true, "overlap": true, "index_k_bytes_per_token": 132}',
  ]);
  assert.deepEqual(events[0]!.attrs, {
    backend: "nixl",
    version: "0.5.14",
    index_k_dtype: "bf16",
    page_size: 64,
    hicache: true,
    overlap: true,
    index_k_bytes_per_token: 132,
  });
});

test("lines that are not JSON or lack ts/ev are issues with their line numbers; the others parse", () => {
  const { events, issues } = parse([
    '{"ts": 1764421512.1, "ev": "req.arrive", "rid": "a1", "room": 11}',
    "garbage {",
    '{"ev": "req.finish", "rid": "a1"}',
    '{"ts": 1764421512.3, "rid": "a1"}',
    "",
    '["ts", 1]',
    '{"ts": "yesterday", "ev": "req.finish"}',
    '{"ts": 1764421512.4, "ev": "req.finish", "rid": "a1", "room": 11}',
  ]);
  assert.deepEqual(
    events.map((e) => [e.line, e.kind, e.rid]),
    [
      [1, "req.arrive", "a1"],
      [8, "req.finish", "a1"],
    ],
  );
  assert.deepEqual(
    issues.map((i) => i.line),
    [2, 3, 4, 6, 7],
  );
  assert.match(issues[0]!.message, /not JSON/);
  assert.match(issues[1]!.message, /lacks ts/);
  assert.match(issues[2]!.message, /lacks ev/);
  assert.match(issues[3]!.message, /not a JSON object/);
  assert.match(issues[4]!.message, /not a time/);
});

test("detection: probe records are told from checksum dumps and logs by content", () => {
  assert.equal(detectFormat('{"ts": 1764421512.1, "ev": "kv.post", "room": 1}\n')?.name, "probe-jsonl");
  assert.equal(
    detectFormat('{"ts": 1764421512.1, "host": "d0", "role": "decode", "tp": 0, "side": "decode_recv", "room": 9, "buffer": "index_k", "layer": 0, "page": 4, "pos": 0, "algo": "crc32", "hash": "9ae0daaf"}\n')?.name,
    "checksum-jsonl",
  );
  assert.notEqual(detectFormat("[2026-08-20 10:15:32 TP0] Prefill batch, #new-seq: 3\n")?.name, "probe-jsonl");
});
