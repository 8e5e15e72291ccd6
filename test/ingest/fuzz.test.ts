// Property: whatever the text, the probe, checksum and Flight Recorder parsers
// never throw, every event has an integer time, rooms are strings, and every
// non-blank line of a record format ends up as an event or an issue. Inputs
// are random lines and random mutations (cuts, splices, flipped and inserted
// characters) of real records; the generator is seeded, so a failure repeats.

import { test } from "node:test";
import assert from "node:assert/strict";
import type { ParsedEvent, ParseIssue } from "../../domain/event.js";
import type { InputFormat } from "../../ingest/formats/format.js";
import { checksumCsv, checksumJsonl } from "../../ingest/formats/checksumDump.js";
import { flightRecorder } from "../../ingest/formats/flightRecorder.js";
import { probeJsonl } from "../../ingest/formats/probeJsonl.js";
import { FR_DUMP } from "./bundle.js";
import { uniformStream } from "../../fixtures/generator/prng.js";

const PROBE_LINES = [
  '{"ts": 1764421512.123456, "host": "p0", "role": "prefill", "dp": 0, "pp": 0, "tp": 3, "ev": "kv.post", "room": 8972542885242963296, "chunk": 2, "last": false, "pages": [[1024, 1088]], "bytes": 1048576, "queue": 1}',
  '{"ts": 1764421512123456789, "host": "d0", "role": "decode", "tp": 0, "ev": "kv.notify", "room": 8972542885242963296, "tag": "8972542885242963296_kv_2_1_0"}',
  '{"ts": 1764421512.5, "host": "d0", "role": "decode", "tp": 1, "ev": "kernel.read", "buffer": "index_k", "layer": 12, "pages": [[2048, 2050], [1024, 1088]], "room": "8972542885242963296", "consumer": -1}',
  '{"ts": 1764421512.5, "ev": "kv.poll", "room": 77, "local": 4, "reduced": 2}',
  '{"ts": 1764421500.0, "host": "p0", "role": "prefill", "ev": "config", "backend": "nixl", "version": "0.5.14", "index_k_dtype": "bf16", "hicache": true}',
  '{"ts": 1764421512.7, "host": "p0", "ev": "coll.enter", "group": "tp", "op": "all_reduce", "seq": 17, "site": "poll_and_all_reduce", "digest": "a1"}',
];
const CHECKSUM_JSONL = [
  '{"ts": 1764421512.25, "host": "d0", "role": "decode", "tp": 3, "side": "decode_recv", "room": 8972542885242963296, "buffer": "index_k", "layer": 17, "page": 4211, "pos": 5, "algo": "crc32", "hash": "9ae0daaf"}',
];
const CHECKSUM_CSV = [
  "1764421512.1,p0,prefill,3,prefill_store,8972542885242963296,index_k,17,1024,5,xxh64,00ff12ab34cd56ef",
  '1764421512123456789,d0,decode,3,decode_read,8972542885242963296,"index_k",17,4211,5,xxh64,00ff12ab34cd56ef',
];
const CSV_HEADER = "ts,host,role,tp,side,room,buffer,layer,page,pos,algo,hash";

const NASTY = '{}[]":,.-+eE0123456789\\ \t\r\u0000\ufffd\ud800é中truefalsenull';

function randomLine(r: () => number): string {
  let s = "";
  const len = Math.floor(r() * 160);
  for (let i = 0; i < len; i++) {
    const c = r() < 0.4 ? Math.floor(r() * 0x3000) : NASTY.charCodeAt(Math.floor(r() * NASTY.length));
    s += c === 10 ? " " : String.fromCharCode(c);
  }
  return s;
}

function mutate(r: () => number, line: string, pool: readonly string[]): string {
  const at = Math.floor(r() * line.length);
  switch (Math.floor(r() * 5)) {
    case 0:
      return line.slice(0, at);
    case 1: {
      const other = pool[Math.floor(r() * pool.length)]!;
      return line.slice(0, at) + other.slice(Math.floor(r() * other.length));
    }
    case 2:
      return line.slice(0, at) + NASTY[Math.floor(r() * NASTY.length)] + line.slice(at + 1);
    case 3:
      return line.slice(0, at) + randomLine(r).slice(0, 8) + line.slice(at);
    default:
      return line.replace(/\d{3}/, String(Math.floor(r() * 1e12)));
  }
}

function feed(format: InputFormat, lines: readonly string[]): { events: ParsedEvent[]; issues: ParseIssue[] } {
  const parser = format.createParser({ sourcePath: "fuzz/nccl_trace_rank_1", host: "p0", tzOffsetMinutes: 0 });
  const events: ParsedEvent[] = [];
  const issues: ParseIssue[] = [];
  lines.forEach((l, i) => parser.line(l, i + 1, events, issues));
  parser.end(events, issues);
  return { events, issues };
}

function checkEvents(events: ParsedEvent[]): void {
  for (const e of events) {
    assert.ok(Number.isSafeInteger(e.tsUs), `tsUs ${e.tsUs}`);
    assert.ok(e.room === undefined || typeof e.room === "string");
    assert.equal(typeof e.kind, "string");
    if (e.attrs !== undefined) JSON.stringify(e.attrs);
  }
}

for (const [name, format, pool, header] of [
  ["probe JSONL", probeJsonl, PROBE_LINES, undefined],
  ["checksum JSONL", checksumJsonl, CHECKSUM_JSONL, undefined],
  ["checksum CSV", checksumCsv, CHECKSUM_CSV, CSV_HEADER],
] as const) {
  test(`${name}: random and mutated lines never throw; every line is an event or an issue`, () => {
    const r = uniformStream(name.length * 7919);
    for (let round = 0; round < 300; round++) {
      const lines = Array.from({ length: 20 }, () => (r() < 0.3 ? randomLine(r) : mutate(r, pool[Math.floor(r() * pool.length)]!, pool)));
      const input = header ? [header, ...lines] : lines;
      const { events, issues } = feed(format, input);
      checkEvents(events);
      const accounted = new Set([...events.map((e) => e.line), ...issues.map((i) => i.line)]);
      input.forEach((line, i) => {
        if (line.trim() !== "" && !(header && i === 0)) assert.ok(accounted.has(i + 1), `line ${i + 1} lost: ${JSON.stringify(line)}`);
      });
    }
  });
}

test("Flight Recorder: random and mutated dumps never throw", () => {
  const r = uniformStream(424242);
  const lines = FR_DUMP.split("\n");
  for (let round = 0; round < 300; round++) {
    const mutated = lines.map((l) => (r() < 0.1 ? mutate(r, l, lines) : r() < 0.02 ? randomLine(r) : l));
    const { events } = feed(flightRecorder, mutated);
    checkEvents(events);
  }
});
