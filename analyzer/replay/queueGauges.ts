// Each rank's queue gauges from its batch lines: `#transfer-req` and
// `#prealloc-req` on decode, `#inflight-req` and `#bootstrap-req` on prefill
// (docs/protocol.md §2.1, §2.2), which time travel shows as inferred state
// (inferredState.ts): at a point, each rank's last reading of each gauge at
// or before it. The blocks alone give that only by reading every batch line
// before the point (batch lines are in nearly every block: 2.2 s of a cold
// `replay --at` on a 7 M-event incident), so the derive step stores
// checkpoints: after every CHECKPOINT_BLOCKS-th block, each (rank, gauge)'s
// last reading so far. A point then reads the checkpoint before it and the
// batch lines of fewer than CHECKPOINT_BLOCKS blocks after it. A file without
// current checkpoints (derived before they existed, or by a program that
// skipped the derive step) has every reading read on first use, in memory.

import { LogKind } from "../../domain/kinds.js";
import type { IncidentDb } from "../../store/db.js";
import { getMetaJson, setMeta } from "../../store/db.js";
import { eventBlocks } from "../../store/blocks/eventBlocks.js";
import { gaugeLines } from "../../store/read/records.js";
import type { ModelOptions } from "../model/index.js";
import { rankLabel } from "../model/ranks.js";
import { eventsFingerprint } from "./fingerprint.js";
import { countAtOrBefore } from "./seqSearch.js";

/** A batch line's queue gauge on a rank. */
export interface GaugeReading {
  seq: number;
  tsUs: number;
  rank: string;
  gauge: string;
  value: number;
}

export const GAUGES: readonly { kind: string; field: string; queue: string }[] = [
  { kind: LogKind.decodeBatch, field: "#transfer-req", queue: "decode's transfer queue" },
  { kind: LogKind.decodeBatch, field: "#prealloc-req", queue: "decode's prealloc queue" },
  { kind: LogKind.prefillBatch, field: "#inflight-req", queue: "prefill's inflight queue" },
  { kind: LogKind.prefillBatch, field: "#bootstrap-req", queue: "prefill's bootstrap queue" },
];

/** The fields each batch kind's lines are read for. */
const FIELDS: Readonly<Record<string, readonly string[]>> = Object.fromEntries(
  [...new Set(GAUGES.map((g) => g.kind))].map((kind) => [kind, GAUGES.filter((g) => g.kind === kind).map((g) => g.field)]),
);

export interface QueueGauges {
  /** Each (rank, gauge)'s last reading at or before `seq`, in the order the incident's readings first name them; none for a pair without one yet. */
  at(seq: number): GaugeReading[];
}

/** Blocks between checkpoints: a point reads the batch lines of fewer blocks than this (~4,096 events each). */
const CHECKPOINT_BLOCKS = 8;
/** Bump when what a reading is, or how it is stored, changes: stored checkpoints of another format are not read. */
const FORMAT = "1";
const META_KEY = "queue_gauges";

/** A reading as stored: seq, time, value (a value JSON cannot hold, like NaN, as its string). */
type StoredReading = [seq: number, tsUs: number, value: number | string];

interface StoredGauges {
  fingerprint: string;
  format: string;
  qualifyHosts: boolean;
  /** (rank, gauge) in the order `at` lists them. */
  keys: [rank: string, gauge: string][];
  /** Per checkpoint, the seq it holds after and each key's last reading at or before it. */
  checkpoints: { seq: number; last: (StoredReading | null)[] }[];
}

/**
 * Per (rank, gauge), its readings in seq order, for the batch lines with
 * seqs in `range`; keyed "rank|gauge" in the order the lines first name
 * them, decode's before prefill's (the order time travel always listed them in).
 */
function readingsOf(db: IncidentDb, options: ModelOptions, range: { fromSeq?: number; toSeq?: number } = {}): Map<string, GaugeReading[]> {
  const byKind = new Map(Object.keys(FIELDS).map((kind) => [kind, new Map<string, GaugeReading[]>()]));
  for (const r of gaugeLines(db, FIELDS, range)) {
    const gauges = byKind.get(r.kind)!;
    const rank = rankLabel(r.host, r.role ?? (r.kind === LogKind.decodeBatch ? "decode" : "prefill"), r.pp, r.tp, options.qualifyHosts ?? false);
    for (const [i, field] of FIELDS[r.kind]!.entries()) {
      const value = r.values[i];
      if (value === null || value === undefined) continue;
      const key = `${rank}|${field}`;
      let list = gauges.get(key);
      if (!list) gauges.set(key, (list = []));
      list.push({ seq: r.seq, tsUs: r.tsUs, rank, gauge: field, value });
    }
  }
  return new Map([...byKind.values()].flatMap((m) => [...m]));
}

/** The incident's gauges: through the stored checkpoints when they are current, else every reading, read on the first `at`. */
export function queueGauges(db: IncidentDb, options: ModelOptions): QueueGauges {
  const stored = getMetaJson<StoredGauges>(db, META_KEY);
  if (stored !== undefined && isCurrent(db, stored, options)) return fromCheckpoints(db, options, stored);
  let all: Map<string, GaugeReading[]> | undefined;
  return {
    at(seq) {
      all ??= readingsOf(db, options);
      return [...all.values()].map((list) => lastAtOrBefore(list, seq)).filter((r): r is GaugeReading => r !== undefined);
    },
  };
}

function fromCheckpoints(db: IncidentDb, options: ModelOptions, stored: StoredGauges): QueueGauges {
  const keys = stored.keys.map(([rank, gauge]) => `${rank}|${gauge}`);
  const index = new Map(keys.map((k, i) => [k, i]));
  return {
    at(seq) {
      const point = lastAtOrBefore(stored.checkpoints, seq);
      const last = stored.keys.map(([rank, gauge], i): GaugeReading | undefined => {
        const r = point?.last[i];
        return r ? { seq: r[0], tsUs: r[1], rank, gauge, value: Number(r[2]) } : undefined;
      });
      for (const [key, list] of readingsOf(db, options, { ...(point && { fromSeq: point.seq + 1 }), toSeq: seq })) {
        const i = index.get(key);
        // A key not stored cannot come from the events the checkpoints were made of; listed last rather than lost.
        if (i === undefined) last.push(list[list.length - 1]);
        else last[i] = list[list.length - 1];
      }
      return last.filter((r): r is GaugeReading => r !== undefined);
    },
  };
}

function isCurrent(db: IncidentDb, stored: StoredGauges, options: ModelOptions): boolean {
  return stored.format === FORMAT && stored.qualifyHosts === (options.qualifyHosts ?? false) && stored.fingerprint === eventsFingerprint(db);
}

/** True when the stored checkpoints are those of the current events. */
export function storedGaugesCurrent(db: IncidentDb, options: ModelOptions): boolean {
  const stored = getMetaJson<StoredGauges>(db, META_KEY);
  return stored !== undefined && isCurrent(db, stored, options);
}

/** The derive step's part: reads every reading once and stores the checkpoints for the current events, one every `everyBlocks` blocks. */
export function storeQueueGauges(db: IncidentDb, options: ModelOptions, everyBlocks = CHECKPOINT_BLOCKS): void {
  const all = [...readingsOf(db, options).values()];
  const blocks = eventBlocks(db).list;
  const checkpoints: StoredGauges["checkpoints"] = [];
  for (let b = everyBlocks - 1; b < blocks.length; b += everyBlocks) {
    const seq = blocks[b]!.lastSeq;
    checkpoints.push({
      seq,
      last: all.map((list) => {
        const r = lastAtOrBefore(list, seq);
        return r ? [r.seq, r.tsUs, Number.isFinite(r.value) ? r.value : String(r.value)] : null;
      }),
    });
  }
  const made: StoredGauges = {
    fingerprint: eventsFingerprint(db),
    format: FORMAT,
    qualifyHosts: options.qualifyHosts ?? false,
    keys: all.map((list) => [list[0]!.rank, list[0]!.gauge]),
    checkpoints,
  };
  setMeta(db, META_KEY, JSON.stringify(made));
}

/** The last item whose seq is at or before `seq` (items in seq order). */
function lastAtOrBefore<T extends { seq: number }>(items: readonly T[], seq: number): T | undefined {
  const n = countAtOrBefore(items.length, (i) => items[i]!.seq, seq);
  return n > 0 ? items[n - 1] : undefined;
}
