import { test } from "node:test";
import assert from "node:assert/strict";
import type { InputFormat } from "../../ingest/formats/format.js";
import type { ParsedEvent, ParseIssue } from "../../domain/event.js";
import { checksumCsv, checksumJsonl, splitCsvLine } from "../../ingest/formats/checksumDump.js";
import { detectFormat } from "../../ingest/formats/index.js";

function parse(format: InputFormat, lines: string[]): { events: ParsedEvent[]; issues: ParseIssue[] } {
  const parser = format.createParser({ sourcePath: "dumps/checksums", tzOffsetMinutes: 0 });
  const events: ParsedEvent[] = [];
  const issues: ParseIssue[] = [];
  lines.forEach((l, i) => parser.line(l, i + 1, events, issues));
  parser.end(events, issues);
  return { events, issues };
}

test("a JSONL checksum record: room exact, page as [page, page+1), the rest in attrs, hash lowercased", () => {
  const line =
    '{"ts": 1764421512.250000, "host": "d0", "role": "decode", "tp": 3, "side": "decode_recv", "room": 8972542885242963296, "buffer": "index_k", "layer": 17, "page": 4211, "pos": 5, "algo": "crc32", "hash": "9AE0DAAF"}';
  const { events, issues } = parse(checksumJsonl, [line]);
  assert.deepEqual(issues, []);
  assert.deepEqual(events, [
    {
      tsUs: 1764421512250000,
      line: 1,
      kind: "checksum",
      host: "d0",
      role: "decode",
      tp: 3,
      room: "8972542885242963296",
      layer: 17,
      pageLo: 4211,
      pageHi: 4212,
      attrs: { hash: "9ae0daaf", side: "decode_recv", buffer: "index_k", pos: 5, algo: "crc32" },
      text: line,
    },
  ]);
});

test("a CSV dump with a header: the same fields, integers read, rooms as strings", () => {
  const { events, issues } = parse(checksumCsv, [
    "ts,host,role,tp,side,room,buffer,layer,page,pos,algo,hash",
    "1764421512.1,p0,prefill,3,prefill_store,8972542885242963296,index_k,17,1024,5,xxh64,00ff12ab34cd56ef",
    '1764421512123456789,d0,decode,3,decode_read,8972542885242963296,"index_k",17,4211,5,xxh64,00ff12ab34cd56ef',
  ]);
  assert.deepEqual(issues, []);
  assert.equal(events.length, 2);
  assert.deepEqual(
    events.map((e) => [e.line, e.tsUs, e.host, e.role, e.tp, e.room, e.layer, e.pageLo, e.attrs?.side, e.attrs?.pos, e.attrs?.buffer]),
    [
      [2, 1764421512100000, "p0", "prefill", 3, "8972542885242963296", 17, 1024, "prefill_store", 5, "index_k"],
      [3, 1764421512123456, "d0", "decode", 3, "8972542885242963296", 17, 4211, "decode_read", 5, "index_k"],
    ],
  );
});

test("CSV rows with the wrong cell count or without ts/room/hash are issues; the others parse", () => {
  const { events, issues } = parse(checksumCsv, [
    "ts,room,page,hash",
    "1764421512.1,77,4,abcd",
    "1764421512.2,77,4",
    ",77,5,abcd",
    "1764421512.3,77,6,ef01",
  ]);
  assert.deepEqual(
    events.map((e) => e.line),
    [2, 5],
  );
  assert.deepEqual(
    issues.map((i) => [i.line, /cells/.test(i.message) ? "cells" : /lacks ts/.test(i.message) ? "ts" : i.message]),
    [
      [3, "cells"],
      [4, "ts"],
    ],
  );
});

test("CSV quoting: commas and doubled quotes inside quoted cells", () => {
  assert.deepEqual(splitCsvLine('a,"b,c","say ""hi""",,d'), ["a", "b,c", 'say "hi"', "", "d"]);
});

test("detection of both dump forms by content", () => {
  assert.equal(detectFormat("ts,host,role,tp,side,room,buffer,layer,page,pos,algo,hash\n1,p0,prefill,0,prefill_store,1,kv,0,0,0,crc32,ab\n")?.name, "checksum-csv");
  assert.equal(detectFormat('{"ts": 1, "room": 1, "page": 0, "hash": "ab"}\n')?.name, "checksum-jsonl");
});
