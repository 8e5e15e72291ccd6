// The page's plain logic (ui/view): folding empty time, grouping findings,
// reading collectives for divergence, fitting windows — with worked examples.

import { test } from "node:test";
import assert from "node:assert/strict";
import { culpritMark, divergenceNote, sortCollectives, type CollectiveRow } from "../../ui/view/collectives.js";
import { groupFindings, titleShape } from "../../ui/view/findingGroups.js";
import { TimeMap } from "../../ui/view/timemap.js";
import { fitWindow } from "../../ui/view/window.js";
import type { RuleId } from "../../domain/vocabulary.js";
import type { Finding, Suspect } from "../../ui/wire.js";

test("folding: a 100 s gap shown as 2 s, times on either side keep their distances", () => {
  // Events until 10 s, nothing from 10 s to 110 s, events again after.
  const map = new TimeMap([[10e6, 110e6]], 2e6);
  assert.equal(map.toD(5e6), 5e6);
  assert.equal(map.toD(10e6), 10e6);
  assert.equal(map.toD(60e6), 11e6, "the middle of the gap is the middle of its fold");
  assert.equal(map.toD(110e6), 12e6);
  assert.equal(map.toD(111e6) - map.toD(110e6), 1e6, "after the gap, a second is a second");
  for (const t of [0, 7e6, 10e6, 33e6, 110e6, 150e6]) assert.equal(map.toT(map.toD(t)), t);
  const two = new TimeMap([[10e6, 110e6], [200e6, 500e6]], 2e6);
  assert.equal(two.toD(500e6), 500e6 - 98e6 - 298e6);
  assert.ok(Math.abs(two.toT(two.toD(300e6)) - 300e6) < 1e-3, "inside a fold, back and forth within a nanosecond");
  assert.ok(TimeMap.identity.isIdentity);
  assert.equal(TimeMap.identity.toD(123), 123);
});

const finding = (id: string, rule: RuleId, title: string, extra: Partial<Finding> = {}, body: Partial<Finding["body"]> = {}): Finding => ({
  id,
  rule,
  severity: "high",
  verdict: "violated",
  title,
  tsUs: 1_000 + Number(id.slice(1)),
  body: { id, rule, severity: "high", verdict: "violated", title, ranks: [], witness: [], explanation: title, falsify: "", ...body },
  placed: [],
  ...extra,
});

test("58 per-room findings of one rule and cause are one group of 58 rooms; other verdicts apart; severity order", () => {
  const stalls = Array.from({ length: 58 }, (_, i) =>
    finding(`F${i + 3}`, "transfer-stall", `Room ${8449771539072680511n + BigInt(i)} timed out in KVPoll.WaitingForInput after 300 s on 8 rank(s) (one of 58 rooms)`, {}, { room: String(8449771539072680511n + BigInt(i)) }),
  );
  const findings = [
    ...stalls,
    finding("F2", "transfer-stall", "Transfer path wedged from 2026-06-23T14:42:40.000Z: #transfer-req frozen at 58 on d0/decode/tp0"),
    finding("F1", "unhandled-abort", "Prefill bootstrap threads of 8 ranks on p0/prefill died on an unhandled ABORT", { severity: "critical" }),
    finding("F61", "evidence-gap", "Host clocks far apart: 1", { severity: "low" }),
    finding("F62", "hicache-ungated-read", "No ungated read", { severity: "info", verdict: "consistent" }),
    finding("F63", "collective-divergence", "No collective records", { severity: "info", verdict: "undetermined" }),
  ];
  const suspects: Suspect[] = [
    { rank: 1, cause: "unhandled-abort", confidence: 0.92, body: { rank: 1, cause: "unhandled-abort", confidence: 0.92, findings: ["F1", "F2", "F3"], summary: "s", falsify: "f" } },
  ];
  const g = groupFindings(findings, suspects);
  assert.deepEqual(
    g.violated.map((x) => [x.lead.id, x.rule, x.count, x.rooms.length]),
    [
      ["F1", "unhandled-abort", 1, 0],
      ["F2", "transfer-stall", 1, 0],
      ["F3", "transfer-stall", 58, 58],
      ["F61", "evidence-gap", 1, 0],
    ],
  );
  assert.equal(g.violated[2]!.rooms[0], "8449771539072680511", "rooms stay lossless strings, in id order");
  assert.deepEqual(g.violated[2]!.members.slice(0, 3).map((m) => m.id), ["F3", "F4", "F5"], "F10 after F9, not after F1");
  assert.deepEqual(g.violated[0]!.citedBy, [1]);
  assert.deepEqual(g.other.map((x) => [x.lead.id, x.verdict]), [["F62", "consistent"], ["F63", "undetermined"]]);
  assert.equal(titleShape("Room 123 timed out after 300 s"), "Room # timed out after # s");
});

test("a finding the analyzer grouped keeps its rooms and count", () => {
  const grouped = finding("F4", "transfer-stall", "58 rooms timed out in KVPoll.WaitingForInput after 300 s", {}, {
    room: "8449771539072680511",
    rooms: ["8449771539072680511", "3799591362462907685"],
    count: 58,
  });
  const [g] = groupFindings([grouped], []).violated;
  assert.deepEqual([g!.count, g!.rooms], [58, ["8449771539072680511", "3799591362462907685"]]);
});

const coll = (rank: string, seq: number, op: string): CollectiveRow => ({ rank, group: "p0/prefill:tp_cpu", seq, op, site: "", inside: true });

test("collectives: rank order, and the model's culprits marked at the seq where their group split (overlap desync)", () => {
  // DESIGN.md seed case 1: six ranks in all_reduce, TP3 and TP6 in the on_idle broadcast, one seq.
  const rows = [7, 3, 10, 0, 1, 2, 4, 5, 6].map((tp) => coll(`p0/prefill/tp${tp}`, 69683, tp === 3 || tp === 6 ? "broadcast" : "all_reduce"));
  assert.deepEqual(sortCollectives(rows).map((r) => r.rank.slice(11)), ["tp0", "tp1", "tp2", "tp3", "tp4", "tp5", "tp6", "tp7", "tp10"]);
  const split = {
    group: "p0/prefill:tp_cpu", where: "p0/prefill", name: "tp_cpu", seq: 69683, op: "all_reduce",
    ranks: ["p0/prefill/tp0", "p0/prefill/tp1", "p0/prefill/tp10", "p0/prefill/tp2", "p0/prefill/tp4", "p0/prefill/tp5", "p0/prefill/tp7"],
    culprits: ["p0/prefill/tp6", "p0/prefill/tp3"],
  };
  assert.deepEqual(sortCollectives(rows).map((r) => culpritMark(r, [split]).culprit), [false, false, false, true, false, false, true, false, false]);
  assert.equal(divergenceNote(split), "p0/prefill tp_cpu: 2 ranks part ways at seq 69683 (p0/prefill/tp3, p0/prefill/tp6); the others are in all_reduce #69683");
  assert.deepEqual(culpritMark(coll("p0/prefill/tp3", 69690, "broadcast"), [split]), { culprit: true, atSplit: false }, "a culprit that moved on is marked, its seq is not the split's");
  assert.deepEqual(culpritMark({ ...coll("p0/prefill/tp3", 69683, "broadcast"), group: "p1/prefill:tp_cpu" }, [split]), { culprit: false, atSplit: false }, "another host's group is another group");
});

test("a window wider than the incident is the incident; one that sticks out moves in", () => {
  assert.deepEqual(fitWindow(-50, 400, 0, 300, 10), [0, 300]);
  assert.deepEqual(fitWindow(-50, 100, 0, 300, 10), [0, 150]);
  assert.deepEqual(fitWindow(250, 350, 0, 300, 10), [200, 300]);
  assert.deepEqual(fitWindow(100, 101, 0, 300, 10), [100, 110]);
});
