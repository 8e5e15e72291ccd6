import { test } from "node:test";
import assert from "node:assert/strict";
import { Evidence } from "../../analyzer/rules/evidence.js";
import { evidenceGap } from "../../analyzer/rules/evidenceGap.js";
import type { CoverageGap } from "../../analyzer/rules/finding.js";
import { buildIncident } from "./incidentBuilder.js";
import { decodeBatch, decodeTimeout, lines } from "./logLines.js";

function gapsOf(db: ReturnType<typeof buildIncident>): CoverageGap[] {
  return evidenceGap.run({ evidence: new Evidence(db) }).findings.flatMap((f) => (f.facts?.gaps as CoverageGap[] | undefined) ?? []);
}

test("a TP rank absent from the logs and an unreadable prefix line are gaps", () => {
  const decode = lines(
    decodeTimeout(300, 0, "a0", "5830149913321"),
    decodeTimeout(300, 1, "a0", "5830149913321"),
    decodeTimeout(300, 3, "a0", "5830149913321"),
    "[2026-08-20 25:61:00 DP0 TP0] Decode batch, #running-req: 1, #transfer-req: 0",
  );
  const gaps = gapsOf(buildIncident([{ path: "d0/decode.log", text: decode, host: "d0" }]));
  const missing = gaps.find((g) => g.kind === "missing-ranks")!;
  assert.deepEqual(missing.ranks, ["decode/tp2"]);
  assert.match(missing.detail, /decode shows 3 of 4 TP ranks/);
  const parse = gaps.find((g) => g.kind === "parse-errors")!;
  assert.equal(parse.source, "d0/decode.log");
  assert.match(parse.detail, /first: line 4: impossible date/);
});

test("a stats rank silent for minutes while its DP sibling logs, and one that stops early, are gaps", () => {
  const steady = (tp: number, from: number, to: number) => [...Array(Math.floor((to - from) / 5)).keys()].map((i) => decodeBatch(from + i * 5, i % 7, 64, tp));
  const tp0 = lines(steady(0, 0, 900));
  const tp4 = lines(steady(4, 0, 300), steady(4, 600, 900));
  const tp8 = lines(steady(8, 0, 400));
  const db = buildIncident([
    { path: "d0/decode-dp0.log", text: tp0, host: "d0" },
    { path: "d0/decode-dp1.log", text: tp4.replace(/DP0 TP4/g, "DP1 TP4"), host: "d0" },
    { path: "d0/decode-dp2.log", text: tp8.replace(/DP0 TP8/g, "DP2 TP8"), host: "d0" },
  ]);
  const gaps = gapsOf(db);
  const silent = gaps.filter((g) => g.kind === "time-gap");
  assert.deepEqual(silent.map((g) => g.source), ["d0/decode-dp1.log"]);
  assert.equal(silent[0]!.from, "2026-08-20T10:04:55.000Z");
  assert.equal(silent[0]!.to, "2026-08-20T10:10:00.000Z");
  const early = gaps.filter((g) => g.kind === "truncated-source");
  assert.deepEqual(early.map((g) => g.source), ["d0/decode-dp2.log"]);
});

test("every rank present, clean parse and continuous sources are consistent", () => {
  const decode = lines([0, 1, 2, 3].map((tp) => decodeTimeout(300, tp, "a0", "5830149913321")));
  const r = evidenceGap.run({ evidence: new Evidence(buildIncident([{ path: "d0/decode.log", text: decode, host: "d0" }])) });
  assert.deepEqual(r.findings.map((f) => f.verdict), ["consistent"]);
});
