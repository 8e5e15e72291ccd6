// checksum-mismatch: the decode copy of a room's page differs from what
// prefill stored. Dumps (DESIGN.md "Checksum dumps") are compared by
// (room, buffer, layer, pos, algo); `page` is each side's own pool index. A
// mismatching decode page is attributed:
//   stale  — its hash equals another room's data, preferably a previous owner
//            of the same decode page (DESIGN.md incident 6: proof of reuse);
//   torn   — its hash equals nothing known (a partial or interleaved write);
//            when the page's bytes were dumped too, page-bytes' diagnosis of
//            them says how ("torn at row 37", analyzer/pages/diagnosis.ts);
//   undetermined — prefill's dump of that position is missing.

import { ChecksumKind } from "../../domain/kinds.js";
import type { StoredEvent } from "../../store/read/events.js";
import { decodeAs } from "../events/decode.js";
import type { Evidence } from "./evidence.js";
import { mergeByMechanism } from "./grouping.js";
import { pageDiagnosisAt } from "../pages/dumpedPages.js";
import type { PageKernels } from "../model/pageKernels.js";
import type { ModelDumpedPage } from "../model/pagePath.js";
import { undetermined, type DraftFinding, type Rule, type RuleResult } from "./rule.js";

/** One checksum line, without its event: an incident has one per page and layer written or read. */
interface ChecksumRecord {
  seq: number;
  side: string;
  room: string;
  buffer: string;
  layer: number;
  page: number;
  pos: number;
  algo: string;
  hash: string;
  rank: string;
  /** The pool the page belongs to: host and rank. */
  pool: string;
}

type Attribution = "stale" | "torn";

interface Mismatch {
  recv: ChecksumRecord;
  sent: ChecksumRecord;
  attribution: Attribution;
  /** For stale: the record whose hash the decode page carries. */
  source?: ChecksumRecord;
  previousOwner: boolean;
}

const RECEIVER_SIDES = new Set(["decode_recv", "decode_read"]);

export const checksumMismatch: Rule = {
  id: "checksum-mismatch",
  needs: ["checksum dumps: prefill_store and decode_recv / decode_read, per (room, buffer, layer, pos)"],
  run({ evidence, replay }): RuleResult {
    const records: ChecksumRecord[] = [];
    const labels = new Map<string, string>();
    evidence.each(ChecksumKind, (ev) => {
      const record = toRecord(evidence, ev, labels);
      if (record) records.push(record);
    });
    const sent = records.filter((r) => r.side === "prefill_store");
    const received = records.filter((r) => RECEIVER_SIDES.has(r.side));
    if (received.length === 0 || sent.length === 0) {
      return undetermined("checksum-mismatch", "No checksum pairs to compare",
        [sent.length === 0 ? "prefill_store checksum dumps" : "decode_recv / decode_read checksum dumps"],
        `The incident has ${sent.length} prefill_store and ${received.length} decode-side checksum records; both sides are needed.`);
    }
    const comparison = compare(sent, received);
    const findings: DraftFinding[] = [];
    const ratio = `${comparison.matchingRooms}/${comparison.comparedRooms} rooms match`;
    const perRoom = [...comparison.mismatchesByRoom].map(([room, mismatches]) => roomFinding(evidence, room, mismatches, ratio, comparison.pagesByRoom.get(room) ?? 0, replay?.pages));
    // One finding for the rooms holding another room's data, one for torn pages (DESIGN.md incident 6).
    findings.push(...mergeByMechanism(perRoom, (f) => (Number(f.facts?.stale ?? 0) > 0 ? "stale" : "torn"),
      (lead, n) => `${n} rooms' page checksums differ from prefill (${Number(lead.facts?.stale ?? 0) > 0 ? "stale: another room's index-K" : "torn"}); ${ratio}`));
    if (comparison.unpaired.size > 0) findings.push(unpairedFinding(comparison.unpaired));
    if (findings.length === 0) {
      findings.push({
        rule: "checksum-mismatch", severity: "info", verdict: "consistent", title: `All compared rooms match (${ratio})`, ranks: [], witness: [],
        explanation: `Compared ${comparison.comparedPages} decode page checksums with prefill's stores by (room, buffer, layer, pos): every one matches (${ratio}).`,
        falsify: "", checked: comparison.comparedRooms,
      });
    }
    return { checked: comparison.comparedRooms, findings };
  },
};

/** `labels` keeps one copy of each rank and pool label: a record per checksum line (an eighth of some incidents' events) each holding its own two strings was ~80 bytes a record. */
function toRecord(evidence: Evidence, ev: StoredEvent, labels: Map<string, string>): ChecksumRecord | undefined {
  const { side, buffer, pos, page, layer, hash, room, algo } = decodeAs(ev, ChecksumKind)!;
  if (!side || !buffer || pos === undefined || page === undefined || layer === undefined || !hash || !room) return undefined;
  const one = (label: string): string => labels.get(label) ?? (labels.set(label, label), label);
  const rank = one(evidence.rank(ev));
  return { seq: ev.seq, side, room, buffer, layer, page, pos, algo: algo ?? "?", hash: hash.toLowerCase(), rank, pool: one(`${ev.host ?? ""}|${rank}`) };
}

interface Comparison {
  comparedRooms: number;
  matchingRooms: number;
  comparedPages: number;
  pagesByRoom: Map<string, number>;
  mismatchesByRoom: Map<string, Mismatch[]>;
  /** Rooms with decode records but no prefill record for some position: room → records. */
  unpaired: Map<string, ChecksumRecord[]>;
}

function compare(sent: ChecksumRecord[], received: ChecksumRecord[]): Comparison {
  const sentByKey = new Map<string, ChecksumRecord>();
  const sentByHash = new Map<string, ChecksumRecord[]>();
  for (const s of sent) {
    sentByKey.set(keyOf(s), s);
    listInto(sentByHash, `${s.algo}:${s.hash}`, s);
  }
  const pageHistory = new Map<string, ChecksumRecord[]>();
  for (const r of received) listInto(pageHistory, pageKey(r), r);
  const out: Comparison = { comparedRooms: 0, matchingRooms: 0, comparedPages: 0, pagesByRoom: new Map(), mismatchesByRoom: new Map(), unpaired: new Map() };
  const roomsCompared = new Set<string>();
  for (const r of received) {
    const s = sentByKey.get(keyOf(r));
    if (!s) {
      listInto(out.unpaired, r.room, r);
      continue;
    }
    roomsCompared.add(r.room);
    out.comparedPages++;
    out.pagesByRoom.set(r.room, (out.pagesByRoom.get(r.room) ?? 0) + 1);
    if (s.hash === r.hash) continue;
    listInto(out.mismatchesByRoom, r.room, attribute(r, s, sentByHash, pageHistory));
  }
  out.comparedRooms = roomsCompared.size;
  out.matchingRooms = [...roomsCompared].filter((room) => !out.mismatchesByRoom.has(room)).length;
  return out;
}

function listInto<T>(lists: Map<string, T[]>, key: string, item: T): void {
  const list = lists.get(key);
  if (list) list.push(item);
  else lists.set(key, [item]);
}

function keyOf(r: ChecksumRecord): string {
  return `${r.room}|${r.buffer}|${r.layer}|${r.pos}|${r.algo}`;
}

function pageKey(r: ChecksumRecord): string {
  return `${r.pool}|${r.buffer}|${r.layer}|${r.page}`;
}

function attribute(recv: ChecksumRecord, sent: ChecksumRecord, sentByHash: Map<string, ChecksumRecord[]>, pageHistory: Map<string, ChecksumRecord[]>): Mismatch {
  const others = (sentByHash.get(`${recv.algo}:${recv.hash}`) ?? []).filter((s) => s.room !== recv.room);
  const previousOwners = new Set((pageHistory.get(pageKey(recv)) ?? []).filter((h) => h.room !== recv.room && h.seq < recv.seq).map((h) => h.room));
  const fromOwner = others.find((s) => previousOwners.has(s.room));
  const source = fromOwner ?? others[0];
  if (source) return { recv, sent, attribution: "stale", source, previousOwner: fromOwner !== undefined };
  return { recv, sent, attribution: "torn", previousOwner: false };
}

function roomFinding(evidence: Evidence, room: string, mismatches: Mismatch[], ratio: string, pages: number, kernels: PageKernels<ModelDumpedPage> | undefined): DraftFinding {
  const first = mismatches.find((m) => m.attribution === "stale") ?? mismatches[0]!;
  const stale = mismatches.filter((m) => m.attribution === "stale");
  const { recv, sent } = first;
  // The witnesses' events, read again by seq: the records keep only what the comparison needs.
  const recvEv = evidence.event(recv.seq)!;
  const sentEv = evidence.event(sent.seq)!;
  const sourceEv = first.source && evidence.event(first.source.seq)!;
  const where = `${recv.buffer} layer ${recv.layer} pos ${recv.pos}`;
  const sourceText = sourceEv
    ? `which is room ${first.source!.room}'s data (${evidence.where(sourceEv)})${first.previousOwner ? `, a previous owner of ${recv.rank} page ${recv.page}` : ""}: the page holds another request's index-K (stale)`
    : `which matches no record of any room: ${tornText(evidence, recv, kernels)}`;
  return {
    rule: "checksum-mismatch",
    severity: stale.length > 0 ? "critical" : "high",
    verdict: "violated",
    title: `Room ${room}: ${mismatches.length}/${pages} page checksum(s) differ from prefill (${stale.length ? `${stale.length} stale` : ""}${stale.length && stale.length < mismatches.length ? ", " : ""}${mismatches.length - stale.length ? `${mismatches.length - stale.length} torn` : ""}); ${ratio}`,
    room,
    ranks: [recv.rank],
    tsUs: recvEv.tsUs,
    witness: [sentEv, recvEv, ...(sourceEv ? [sourceEv] : [])],
    explanation:
      `Let room ${room}'s ${where} be stored on prefill with ${sent.algo} ${sent.hash} (${evidence.where(sentEv)}). ` +
      `Then decode's copy must hash ${sent.hash} after the transfer, but ${recv.rank} page ${recv.page} (${recv.side}) hashes ${recv.hash} (${evidence.where(recvEv)}), ${sourceText}. ` +
      `Overall ${ratio}.`,
    falsify: "Rerun with decode page release deferred until prefill's writes drain (SGLANG_DISAGGREGATION_DEFERRED_DECODE_KV_RELEASE=1, docs/protocol.md §7.4) or with fp8 index-K at the same concurrency; stale pages must disappear.",
    checked: pages,
    facts: {
      attributions: mismatches.map((m) => ({ pos: m.recv.pos, layer: m.recv.layer, attribution: m.attribution, sourceRoom: m.source?.room, previousOwner: m.previousOwner, side: m.recv.side })),
      stale: stale.length,
      torn: mismatches.length - stale.length,
    },
  };
}

/** "torn at row 37: …" when the page's bytes were dumped too (page-bytes' diagnosis), else what the hash alone says. */
function tornText(evidence: Evidence, recv: ChecksumRecord, kernels: PageKernels<ModelDumpedPage> | undefined): string {
  const pair = pageDiagnosisAt(evidence, recv, kernels);
  const d = pair?.diagnosis;
  if (!pair || !d) return "the page was partly or concurrently written (torn)";
  return `its dumped bytes (${evidence.where(pair.decode.ref)}) show ${d.mechanism === "none" ? "no known mechanism" : d.mechanism}: ${d.detail}`;
}

function unpairedFinding(unpaired: Map<string, ChecksumRecord[]>): DraftFinding {
  const rooms = [...unpaired.keys()];
  const pages = [...unpaired.values()].reduce((n, l) => n + l.length, 0);
  return {
    rule: "checksum-mismatch",
    severity: "info",
    verdict: "undetermined",
    title: `${rooms.length} room(s) have decode checksums without prefill's dump`,
    ...(rooms.length === 1 && { room: rooms[0]! }),
    ranks: [],
    witness: [],
    explanation: `${pages} decode page checksum(s) of room(s) ${rooms.slice(0, 10).join(", ")}${rooms.length > 10 ? " …" : ""} have no prefill_store record for the same (room, buffer, layer, pos): whether they match cannot be told.`,
    falsify: "",
    checked: rooms.length,
    missing: [`prefill_store dumps of room(s) ${rooms.slice(0, 10).join(", ")}${rooms.length > 10 ? " …" : ""}`],
  };
}
