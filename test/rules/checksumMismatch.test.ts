import { runRule } from "../../analyzer/rules/index.js";
import { test } from "node:test";
import assert from "node:assert/strict";
import { checksumMismatch } from "../../analyzer/rules/checksumMismatch.js";
import { Evidence } from "../../analyzer/rules/evidence.js";
import { buildIncident } from "./incidentBuilder.js";
import { lines } from "./logLines.js";
import { checksum, type ChecksumLine } from "./probeLines.js";

const OLD = "8972542885242963296";
const NEW = "8972542885242963297";
const TORN = "5830149913321";
const OK = "7140283925190346112";
const UNSENT = "1234567890123456789";

const hash = (room: string, pos: number): string => `${room.slice(-6)}${pos.toString(16).padStart(4, "0")}aaaaaa`;

function store(sec: number, room: string, pos: number, page: number): ChecksumLine {
  return { sec, host: "p0", role: "prefill", side: "prefill_store", room, layer: 7, page, pos, hash: hash(room, pos) };
}

function recv(sec: number, room: string, pos: number, page: number, h = hash(room, pos)): ChecksumLine {
  return { sec, host: "d0", role: "decode", side: "decode_recv", room, layer: 7, page, pos, hash: h };
}

/**
 * OLD held decode pages 1088–1089; NEW got them next and its pos 1 still
 * carries OLD's pos 1 (stale); TORN's pos 0 matches nothing; OK matches;
 * UNSENT has no prefill dump.
 */
async function dumps(): ReturnType<typeof buildIncident> {
  const prefill = [
    store(1, OLD, 0, 40), store(1, OLD, 1, 41),
    store(2, NEW, 0, 50), store(2, NEW, 1, 51),
    store(3, TORN, 0, 60),
    store(4, OK, 0, 70), store(4, OK, 1, 71),
  ];
  const decode = [
    recv(5, OLD, 0, 1088), recv(5, OLD, 1, 1089),
    recv(9, NEW, 0, 1088), recv(9, NEW, 1, 1089, hash(OLD, 1)),
    recv(10, TORN, 0, 2000, "deadbeef00000000"),
    recv(11, OK, 0, 2100), recv(11, OK, 1, 2101),
    recv(12, UNSENT, 0, 2200, "0123456789abcdef"),
  ];
  return await buildIncident([
    { path: "p0/checksums-tp0.jsonl", text: lines(prefill.map(checksum)) },
    { path: "d0/checksums-tp0.jsonl", text: lines(decode.map(checksum)) },
  ]);
}

test("a decode page that carries its previous owner's data is stale; one that matches nothing is torn", async () => {
  const evidence = new Evidence(await dumps());
  const { findings, checked } = runRule(checksumMismatch, evidence);
  assert.equal(checked, 4, "rooms with both sides dumped");
  const stale = findings.find((f) => f.room === NEW)!;
  assert.equal(stale.verdict, "violated");
  assert.equal(stale.severity, "critical");
  assert.match(stale.title, /^Room 8972542885242963297: 1\/2 page checksum\(s\) differ from prefill \(1 stale\); 2\/4 rooms match$/);
  assert.deepEqual(stale.witness.map((w) => evidence.where(w)), ["p0/checksums-tp0.jsonl:4", "d0/checksums-tp0.jsonl:4", "p0/checksums-tp0.jsonl:2"]);
  assert.match(stale.explanation, /which is room 8972542885242963296's data \(p0\/checksums-tp0.jsonl:2\), a previous owner of decode\/tp0 page 1089/);
  const torn = findings.find((f) => f.room === TORN)!;
  assert.equal(torn.severity, "high");
  assert.match(torn.explanation, /matches no record of any room: the page was partly or concurrently written \(torn\)/);
  assert.equal(torn.witness.length, 2);
  const unsent = findings.find((f) => f.verdict === "undetermined")!;
  assert.equal(unsent.room, UNSENT);
  assert.deepEqual(unsent.missing, [`prefill_store dumps of room(s) ${UNSENT}`]);
  assert.ok(!findings.some((f) => f.room === OK || f.room === OLD));
});

test("all pages equal is consistent with the room ratio; one side missing is undetermined", async () => {
  const prefill = [store(1, OK, 0, 70), store(1, OK, 1, 71)];
  const decode = [recv(2, OK, 0, 2100), recv(2, OK, 1, 2101)];
  const db = await buildIncident([
    { path: "p0/checksums-tp0.jsonl", text: lines(prefill.map(checksum)) },
    { path: "d0/checksums-tp0.jsonl", text: lines(decode.map(checksum)) },
  ]);
  const ok = runRule(checksumMismatch, new Evidence(db));
  assert.deepEqual(ok.findings.map((f) => [f.verdict, f.title]), [["consistent", "All compared rooms match (1/1 rooms match)"]]);
  const oneSide = await buildIncident([{ path: "d0/checksums-tp0.jsonl", text: lines(decode.map(checksum)) }]);
  const r = runRule(checksumMismatch, new Evidence(oneSide));
  assert.deepEqual(r.findings[0]!.missing, ["prefill_store checksum dumps"]);
});
