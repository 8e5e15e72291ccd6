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
import type { EventCursor } from "../../store/blocks/eventCursor.js";
import type { Reading } from "../../store/blocks/pass.js";
import { RoomEnds } from "../../store/read/roomEnds.js";
import { visitSeqs } from "../../store/read/seqs.js";
import type { StoredEvent } from "../../store/read/events.js";
import { EventDecoder } from "../events/decode.js";
import type { EventOf } from "../../domain/domainEvent.js";
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

export const checksumMismatch: Rule<Comparison> = {
  id: "checksum-mismatch",
  needs: ["checksum dumps: prefill_store and decode_recv / decode_read, per (room, buffer, layer, pos)"],
  reading: comparisonReading,
  run({ evidence, replay }, comparison): RuleResult {
    if (comparison.received === 0 || comparison.sent === 0) {
      const { sent, received } = comparison;
      return undetermined("checksum-mismatch", "No checksum pairs to compare",
        [sent === 0 ? "prefill_store checksum dumps" : "decode_recv / decode_read checksum dumps"],
        `The incident has ${sent} prefill_store and ${received} decode-side checksum records; both sides are needed.`);
    }
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

/**
 * Checksum lines as the comparison reads them, and as records where a
 * mismatch's attribution needs them. It keeps one copy of each label a
 * record holds (the cursor's strings are its block's); a dump's lines come
 * in runs of one rank, so a line of the same rank and source as the one
 * before reuses its rank and pool labels without making them again.
 */
class RecordReader {
  private readonly labels = new Map<string, string>();
  /** One view for every line: a record copies what it keeps. */
  private readonly decoder = new EventDecoder();
  private readonly line: ComparedLine = { side: "", room: "", key: "", hash: "" };
  private last: { host: string | null; role: string | null; pp: number | null; tp: number | null; sourceId: number; rank: string; pool: string } | null = null;

  constructor(private readonly evidence: Evidence) {}

  record(ev: StoredEvent): ChecksumRecord | undefined {
    if (ev.kind !== ChecksumKind) return undefined;
    const { side, buffer, pos, page, layer, hash, room, algo } = this.decoder.decode(ev, ChecksumKind) as EventOf<typeof ChecksumKind>;
    if (!side || !buffer || pos === undefined || page === undefined || layer === undefined || !hash || !room) return undefined;
    const { rank, pool } = this.rankOf(ev);
    return { seq: ev.seq, side: this.one(side), room, buffer: this.one(buffer), layer, page, pos, algo: this.one(algo ?? "?"), hash: hash.toLowerCase(), rank, pool };
  }

  /**
   * What the comparison reads of a line, in one reused object (copy what you
   * keep): its side, room, comparison key and hash; undefined where the line
   * lacks a field a record needs. No record is made: a room's lines are held
   * while its dumps are under way, and only a mismatch needs its records.
   */
  compared(ev: StoredEvent): ComparedLine | undefined {
    const { side, buffer, pos, page, layer, hash, room, algo } = this.decoder.decode(ev, ChecksumKind) as EventOf<typeof ChecksumKind>;
    if (!side || !buffer || pos === undefined || page === undefined || layer === undefined || !hash || !room) return undefined;
    const line = this.line;
    line.side = side;
    line.room = room;
    line.key = comparisonKey(buffer, layer, pos, algo ?? "?");
    line.hash = hash.toLowerCase();
    return line;
  }

  private one(label: string): string {
    return this.labels.get(label) ?? (this.labels.set(label, label), label);
  }

  /** The line's rank label (Evidence.rank, which reads host, role, pp, tp and the source) and pool label. */
  private rankOf(ev: StoredEvent): { rank: string; pool: string } {
    const { host, role, pp, tp, sourceId } = ev;
    const last = this.last;
    if (last && last.host === host && last.role === role && last.pp === pp && last.tp === tp && last.sourceId === sourceId) return last;
    const rank = this.one(this.evidence.rank(ev));
    this.last = { host, role, pp, tp, sourceId, rank, pool: this.one(`${host ?? ""}|${rank}`) };
    return this.last;
  }
}

/** A checksum line as the comparison reads it (RecordReader.compared). */
interface ComparedLine {
  side: string;
  room: string;
  /** (buffer, layer, pos, algo): comparisonKey. */
  key: string;
  hash: string;
}

interface Comparison {
  /** prefill_store records, and decode_recv / decode_read ones. */
  sent: number;
  received: number;
  comparedRooms: number;
  matchingRooms: number;
  comparedPages: number;
  pagesByRoom: Map<string, number>;
  /** In the order of each room's first mismatching record. */
  mismatchesByRoom: Map<string, Mismatch[]>;
  /** Rooms with decode records but no prefill record for some position: room → how many, in the order of each room's first. */
  unpaired: Map<string, number>;
}

/**
 * One room's lines while the scan is inside its span of checksum lines, as
 * columns: prefill's last line per comparison key (its seq and hash), and
 * the decode lines in order.
 */
interface OpenRoom {
  sentIndex: Map<string, number>;
  sentSeqs: number[];
  sentHashes: string[];
  receivedKeys: string[];
  receivedHashes: string[];
  receivedSeqs: number[];
}

/** A decode line whose hash differs from prefill's line of the same position, by their seqs. */
interface MismatchSeqs {
  recv: number;
  sent: number;
}

interface SettledRoom<T> {
  room: string;
  firstSeq: number;
  value: T;
}

/**
 * Each decode record against prefill's record of the same (room, buffer,
 * layer, pos, algo) — the last one, as a map of all of them would hold.
 * A room is compared once the scan is past its last record (its last block,
 * store/read/roomEnds.ts) and then dropped, so what is held is the rooms
 * whose dumps are under way, not the incident's every checksum line; the few
 * records a mismatch needs for its attribution are read in a pass of their own.
 */
function comparisonReading(evidence: Evidence): Reading<Comparison> {
  const ends = new RoomEnds(evidence.db);
  const records = new RecordReader(evidence);
  const open = new Map<string, OpenRoom>();
  const mismatched: SettledRoom<MismatchSeqs[]>[] = [];
  const unpaired: SettledRoom<number>[] = [];
  const out: Comparison = { sent: 0, received: 0, comparedRooms: 0, matchingRooms: 0, comparedPages: 0, pagesByRoom: new Map(), mismatchesByRoom: new Map(), unpaired: new Map() };
  const settle = (room: string, lines: OpenRoom): void => {
    const mismatches: MismatchSeqs[] = [];
    let pages = 0;
    let lone = 0;
    let firstLone = 0;
    lines.receivedKeys.forEach((key, i) => {
      const s = lines.sentIndex.get(key);
      if (s === undefined) {
        if (lone++ === 0) firstLone = lines.receivedSeqs[i]!;
        return;
      }
      pages++;
      if (lines.sentHashes[s] !== lines.receivedHashes[i]) mismatches.push({ recv: lines.receivedSeqs[i]!, sent: lines.sentSeqs[s]! });
    });
    if (pages > 0) {
      out.comparedRooms++;
      out.comparedPages += pages;
      if (mismatches.length === 0) out.matchingRooms++;
      else {
        out.pagesByRoom.set(room, pages);
        mismatched.push({ room, firstSeq: mismatches[0]!.recv, value: mismatches });
      }
    }
    if (lone > 0) unpaired.push({ room, firstSeq: firstLone, value: lone });
  };
  const passed = (room: string): void => {
    const lines = open.get(room)!;
    open.delete(room);
    settle(room, lines);
  };
  const visit = (ev: EventCursor): void => {
    ends.passTo(ev.seq, passed);
    const line = records.compared(ev);
    if (line === undefined) return;
    const sent = line.side === "prefill_store";
    if (!sent && !RECEIVER_SIDES.has(line.side)) return;
    let lines = open.get(line.room);
    if (!lines) {
      open.set(line.room, (lines = { sentIndex: new Map(), sentSeqs: [], sentHashes: [], receivedKeys: [], receivedHashes: [], receivedSeqs: [] }));
      ends.track(line.room);
    }
    if (sent) {
      out.sent++;
      // The last line of the key, as a map of all of them would hold.
      const at = lines.sentIndex.get(line.key);
      if (at === undefined) {
        lines.sentIndex.set(line.key, lines.sentSeqs.length);
        lines.sentSeqs.push(ev.seq);
        lines.sentHashes.push(line.hash);
      } else {
        lines.sentSeqs[at] = ev.seq;
        lines.sentHashes[at] = line.hash;
      }
    } else {
      out.received++;
      lines.receivedKeys.push(line.key);
      lines.receivedHashes.push(line.hash);
      lines.receivedSeqs.push(ev.seq);
    }
  };
  const finish = (): Comparison => {
    for (const [room, lines] of open) settle(room, lines);
    const inOrder = <T>(rooms: SettledRoom<T>[]) => rooms.sort((a, b) => a.firstSeq - b.firstSeq);
    for (const { room, value } of inOrder(unpaired)) out.unpaired.set(room, value);
    if (mismatched.length > 0) {
      const full = mismatchRecords(evidence, mismatched, records);
      const { sentByHash, pageHistory } = attributionRecords(evidence, mismatched.flatMap((m) => m.value.map((x) => full.get(x.recv)!)), records);
      for (const { room, value } of inOrder(mismatched)) out.mismatchesByRoom.set(room, value.map(({ recv, sent }) => attribute(full.get(recv)!, full.get(sent)!, sentByHash, pageHistory)));
    }
    return out;
  };
  return { readers: [{ kinds: [ChecksumKind], visit }], finish };
}

/** The records of the mismatching lines, read again by seq once the pass is done (only their blocks are decoded). */
function mismatchRecords(evidence: Evidence, mismatched: readonly SettledRoom<MismatchSeqs[]>[], records: RecordReader): Map<number, ChecksumRecord> {
  const out = new Map<number, ChecksumRecord>();
  visitSeqs(evidence.db, mismatched.flatMap((m) => m.value.flatMap((x) => [x.recv, x.sent])), (ev) => {
    const r = records.record(ev);
    if (r) out.set(ev.seq, r);
  });
  return out;
}

/**
 * What attributing the mismatching decode records reads: prefill's records
 * carrying their hashes, and the decode records of their pages, each in seq
 * order.
 */
function attributionRecords(evidence: Evidence, mismatching: ChecksumRecord[], records: RecordReader) {
  const hashes = new Set(mismatching.map(hashKey));
  const pages = new Set(mismatching.map(pageKey));
  const sentByHash = new Map<string, ChecksumRecord[]>();
  const pageHistory = new Map<string, ChecksumRecord[]>();
  evidence.scan(ChecksumKind, (ev) => {
    const r = records.record(ev);
    if (!r) return;
    if (r.side === "prefill_store" && hashes.has(hashKey(r))) listInto(sentByHash, hashKey(r), r);
    if (RECEIVER_SIDES.has(r.side) && pages.has(pageKey(r))) listInto(pageHistory, pageKey(r), r);
  });
  return { sentByHash, pageHistory };
}

function listInto<T>(lists: Map<string, T[]>, key: string, item: T): void {
  const list = lists.get(key);
  if (list) list.push(item);
  else lists.set(key, [item]);
}

/** The comparison's key within a room: (buffer, layer, pos, algo). */
function comparisonKey(buffer: string, layer: number, pos: number, algo: string): string {
  return `${buffer}|${layer}|${pos}|${algo}`;
}

function hashKey(r: ChecksumRecord): string {
  return `${r.algo}:${r.hash}`;
}

function pageKey(r: ChecksumRecord): string {
  return `${r.pool}|${r.buffer}|${r.layer}|${r.page}`;
}

function attribute(recv: ChecksumRecord, sent: ChecksumRecord, sentByHash: Map<string, ChecksumRecord[]>, pageHistory: Map<string, ChecksumRecord[]>): Mismatch {
  const others = (sentByHash.get(hashKey(recv)) ?? []).filter((s) => s.room !== recv.room);
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

function unpairedFinding(unpaired: Map<string, number>): DraftFinding {
  const rooms = [...unpaired.keys()];
  const pages = [...unpaired.values()].reduce((n, l) => n + l, 0);
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
