// The log prefix (docs/protocol.md §1): timestamps with and
// without milliseconds, zones, and rank tags in every order SGLang has used.

import { test } from "node:test";
import assert from "node:assert/strict";
import { LogKind } from "../../domain/kinds.js";
import { parseLines, parseOne, us } from "./sglangHarness.js";

const MSG = "Decode batch, #running-req: 64, #token: 181234, token usage: 0.43, cuda graph: True, gen throughput (token/s): 3712.55, #queue-req: 0";

test("a timestamp without milliseconds is read as UTC seconds", () => {
  const ev = parseOne(`[2026-08-20 10:15:32 TP0] ${MSG}`);
  assert.equal(ev.tsUs, us("2026-08-20T10:15:32Z"));
  assert.ok(Number.isInteger(ev.tsUs));
});

test("SGLANG_LOG_MS=1 milliseconds become microseconds", () => {
  const ev = parseOne(`[2026-08-20 10:15:32.047 TP0] ${MSG}`);
  assert.equal(ev.tsUs, us("2026-08-20T10:15:32.047Z"));
});

test("the zone offset shifts local log time to UTC", () => {
  // Servers logging in UTC+08:00 (Asia/Shanghai) and UTC-07:00 (PDT).
  assert.equal(parseOne(`[2026-08-20 18:15:32 TP0] ${MSG}`, { tzOffsetMinutes: 480 }).tsUs, us("2026-08-20T10:15:32Z"));
  assert.equal(parseOne(`[2026-08-20 03:15:32.500 TP0] ${MSG}`, { tzOffsetMinutes: -420 }).tsUs, us("2026-08-20T10:15:32.500Z"));
  // Across midnight and a month boundary.
  assert.equal(parseOne(`[2026-09-01 01:00:00 TP0] ${MSG}`, { tzOffsetMinutes: 120 }).tsUs, us("2026-08-31T23:00:00Z"));
});

test("consecutive lines in different minutes, hours and days each get their own time", () => {
  const { events } = parseLines([
    `[2026-08-20 23:59:59.999 TP0] ${MSG}`,
    `[2026-08-21 00:00:00.000 TP0] ${MSG}`,
    `[2026-08-21 00:00:01 TP0] ${MSG}`,
    `[2026-08-21 00:01:00 TP0] ${MSG}`,
  ]);
  assert.deepEqual(
    events.map((e) => e.tsUs),
    [us("2026-08-20T23:59:59.999Z"), us("2026-08-21T00:00:00Z"), us("2026-08-21T00:00:01Z"), us("2026-08-21T00:01:00Z")],
  );
});

test("rank tags are read in every historical order and any subset", () => {
  const cases: Array<[string, { dp?: number; pp?: number; tp?: number }, Record<string, number>]> = [
    ["DP1 TP4", { dp: 1, tp: 4 }, {}], // dp-attention, tp=8 dp=2 (§1 "Who logs")
    ["DP0 TP3 PP1", { dp: 0, pp: 1, tp: 3 }, {}], // #5724
    ["DP0 TP3 EP3 PP1", { dp: 0, pp: 1, tp: 3 }, { ep: 3 }], // #8590
    ["DP0 PP1 TP3 EP3", { dp: 0, pp: 1, tp: 3 }, { ep: 3 }], // #12822
    ["DP0 PP1 ATTN_CP1 MOE_DP2 TP5 EP5", { dp: 0, pp: 1, tp: 5 }, { attn_cp: 1, moe_dp: 2, ep: 5 }], // #17213
    ["TP7", { tp: 7 }, {}],
    ["PP1", { pp: 1 }, {}],
    ["EP6 TP6", { tp: 6 }, { ep: 6 }],
    ["TP12 DP3", { dp: 3, tp: 12 }, {}],
  ];
  for (const [tags, ranks, tagAttrs] of cases) {
    const ev = parseOne(`[2026-08-20 10:15:32 ${tags}] ${MSG}`);
    assert.equal(ev.kind, LogKind.decodeBatch, tags);
    assert.equal(ev.dp, ranks.dp, `${tags} dp`);
    assert.equal(ev.pp, ranks.pp, `${tags} pp`);
    assert.equal(ev.tp, ranks.tp, `${tags} tp`);
    for (const [k, v] of Object.entries(tagAttrs)) assert.equal(ev.attrs?.[k], v, `${tags} ${k}`);
    for (const k of ["ep", "attn_cp", "moe_dp"]) if (!(k in tagAttrs)) assert.equal(ev.attrs?.[k], undefined, `${tags} ${k}`);
  }
});

test("a line without tags (tokenizer, detokenizer) has no ranks", () => {
  const ev = parseOne("[2026-08-20 10:15:32] Receive: obj=GenerateReqInput(rid='9f2c4c0e1b2a4f7d8e6a')");
  assert.equal(ev.kind, LogKind.message);
  assert.equal(ev.tp, undefined);
  assert.equal(ev.dp, undefined);
  assert.equal(ev.tsUs, us("2026-08-20T10:15:32Z"));
});

test("an unknown tag is kept in attrs under its lower-case name", () => {
  const ev = parseOne(`[2026-08-20 10:15:32 DP0 XY2 TP1] ${MSG}`);
  assert.equal(ev.tp, 1);
  assert.equal(ev.attrs?.xy, 2);
});

test("a Ray actor prefix before the log prefix is skipped", () => {
  const ev = parseOne(`(SGLangEngine pid=48211, ip=10.0.3.17) [2026-08-20 10:15:32 TP2] ${MSG}`);
  assert.equal(ev.kind, LogKind.decodeBatch);
  assert.equal(ev.tp, 2);
  // Any other parenthesised opening is not a Ray prefix: the line is a record of its own, with no time of its own.
  const { events } = parseLines([`[2026-08-20 10:15:32 TP2] ${MSG}`, `(note) [2026-08-20 10:15:33 TP2] ${MSG}`]);
  assert.deepEqual(
    events.map((e) => [e.kind, e.tsInferred === true]),
    [
      [LogKind.decodeBatch, false],
      [LogKind.unparsed, true],
    ],
  );
});

test("host and role come from the context", () => {
  const ev = parseOne("[2026-08-20 10:15:32 TP2] Scheduler started", { host: "decode-0", role: "decode" });
  assert.equal(ev.host, "decode-0");
  assert.equal(ev.role, "decode");
  assert.equal(ev.line, 1);
});

test("an impossible date is reported and the line kept as a record of its own, its time inferred", () => {
  const { events, issues } = parseLines([`[2026-08-20 10:15:32 TP0] ${MSG}`, `[2026-02-30 10:15:33 TP0] ${MSG}`]);
  assert.equal(events.length, 2);
  assert.equal(events[1].text, `[2026-02-30 10:15:33 TP0] ${MSG}`);
  assert.equal(events[1].tsUs, us("2026-08-20T10:15:32Z"));
  assert.equal(events[1].tsInferred, true);
  assert.equal(issues.length, 1);
  assert.equal(issues[0].line, 2);
  assert.match(issues[0].message, /impossible date/);
});

test("a year whose microseconds would not stay exact is reported, not turned into a time", () => {
  const { events, issues } = parseLines([`[2026-08-20 10:15:32 TP0] ${MSG}`, `[9026-08-20 10:15:33 TP0] ${MSG}`]);
  assert.equal(events.length, 2);
  assert.equal(events[0].tsUs, us("2026-08-20T10:15:32Z"));
  assert.equal(events[1].tsUs, us("2026-08-20T10:15:32Z"));
  assert.equal(events[1].tsInferred, true);
  assert.equal(issues.length, 1);
  assert.equal(issues[0].line, 2);
});

test("prefix look-alikes are not prefixes", () => {
  const notPrefixes = [
    "[2026-08-20 10:15:32 tp0] lower-case tag",
    "[2026-08-20 10:15:32 TP] tag without a number",
    "[2026-08-20 10:15:32.04 TP0] two-digit milliseconds",
    "[2026-08-20 10:15:32 TP0]no space after the bracket",
    "[2026-08-20T10:15:32 TP0] ISO separator",
    // The line above shares their minute: the seconds are still checked.
    "[2026-08-20 10:15:3x TP0] a letter in the seconds",
    "[2026-08-20 10:15-32 TP0] a dash before the seconds",
    "[2026-08-20 10:15 TP0] no seconds",
  ];
  const { events } = parseLines([`[2026-08-20 10:15:32 TP0] ${MSG}`, ...notPrefixes]);
  assert.equal(events.length, 1 + notPrefixes.length, "each look-alike is a record of its own");
  for (const ev of events.slice(1)) assert.deepEqual([ev.kind, ev.tsInferred, ev.tp], [LogKind.unparsed, true, undefined]);
});

test("a stray carriage return at the end of a line (CRLF file) changes nothing", () => {
  const lf = parseOne(`[2026-08-20 10:15:32.047 DP0 TP3] ${MSG}`);
  const crlf = parseOne(`[2026-08-20 10:15:32.047 DP0 TP3] ${MSG}\r`);
  assert.deepEqual(crlf, lf);
  const bare = parseOne("[2026-08-20 10:15:32]\r");
  assert.equal(bare.kind, LogKind.message);
  assert.equal(bare.tsUs, us("2026-08-20T10:15:32Z"));
});

test("a time a user replaced by a placeholder word: the tags are read, the time is not", () => {
  const { events } = parseLines(["[timestamp DP3 TP3] Scheduler is ready", "[... TP0] Load weight end.", "[2026-08-20T10:15:32 TP0] a mangled date is still no prefix"]);
  assert.deepEqual(events.map((e) => [e.kind, e.dp, e.tp]), [[LogKind.message, 3, 3], [LogKind.message, undefined, 0], [LogKind.unparsed, undefined, undefined]]);
  assert.equal(events[0]!.tsInferred, true);
});

test("SGLang's older prefix, a time of day without a date (datefmt %H:%M:%S): the tags are read, the line has no time of its own", () => {
  const { events } = parseLines([
    "[23:17:01 TP6] Memory pool end. avail mem=18.61 GB",
    "[23:17:01 TP3] Capture cuda graph begin. This can take up to several minutes.",
    "[23:17:08] Receive: obj=GenerateReqInput(rid='9f2c4c0e1b2a4f7d8e6a')",
  ]);
  const dated = parseLines([
    "[2026-08-20 23:17:01 TP6] Memory pool end. avail mem=18.61 GB",
    "[2026-08-20 23:17:01 TP3] Capture cuda graph begin. This can take up to several minutes.",
    "[2026-08-20 23:17:08] Receive: obj=GenerateReqInput(rid='9f2c4c0e1b2a4f7d8e6a')",
  ]).events;
  assert.deepEqual(
    events.map((e) => [e.kind, e.tp]),
    dated.map((e) => [e.kind, e.tp]),
    "the message is read as the dated prefix's is",
  );
  assert.deepEqual(events.map((e) => e.tp), [6, 3, undefined]);
  for (const ev of events) assert.notEqual(ev.kind, LogKind.unparsed);
  for (const ev of events) assert.equal(ev.tsInferred, true);
});

test("time-of-day look-alikes are not prefixes", () => {
  const notPrefixes = ["[24:00:00 TP0] no such hour", "[23:60:00 TP0] no such minute", "[23:17:1 TP0] one-digit seconds", "[23:17:01 tp0] lower-case tag", "[23:17:01TP0] no space before the tag", "[23-17-01 TP0] dashes"];
  const { events } = parseLines(notPrefixes);
  assert.equal(events.length, notPrefixes.length, "each look-alike is a record of its own");
  for (const ev of events) assert.deepEqual([ev.kind, ev.tp], [LogKind.unparsed, undefined]);
});
