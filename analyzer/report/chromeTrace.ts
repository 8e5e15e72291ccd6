// Export to the Chrome trace event format (JSON object form), which Perfetto
// and chrome://tracing open. One process per (host, role), one thread per
// rank; every event is a 1 µs slice carrying its source line; collectives and
// KV transfers become slices from enter/post to exit/done; each kv.post is
// linked to its kv.notify by a flow arrow; batch-line queue gauges become
// counters; stored findings become global instant markers. Times are
// microseconds from the incident's first event (the absolute start is in
// `otherData`). Written as a stream: the incident is never held in memory.

import { timeBounds } from "../../store/read/seqs.js";
import { violatedFindingMarks } from "../../store/read/analysis.js";
import type { IncidentDb } from "../../store/db.js";
import { iterateEvents, type StoredEvent } from "../../store/read/events.js";
import { Evidence, isoTime } from "../rules/evidence.js";

type TraceEvent = Record<string, unknown>;

const GAUGE_FIELDS = ["#transfer-req", "#inflight-req", "#bootstrap-req", "#prealloc-req", "#running-req", "#queue-req", "token usage"];
const TEXT_MAX = 400;

export function exportChromeTrace(db: IncidentDb, write: (chunk: string) => void): { traceEvents: number } {
  const evidence = new Evidence(db);
  const bounds = timeBounds(db);
  const t0 = bounds.firstUs ?? 0;
  const t1 = bounds.lastUs ?? 0;
  let count = 0;
  const emit = (e: TraceEvent): void => {
    write(`${count === 0 ? "" : ",\n"}${JSON.stringify(e)}`);
    count++;
  };
  write('{"traceEvents":[\n');
  const lanes = new Lanes(evidence, emit);
  const open = new Map<string, StoredEvent>();
  const posts = new Map<string, { ev: StoredEvent; pid: number; tid: number }>();
  let flowId = 0;
  for (const ev of iterateEvents(db)) {
    const { pid, tid } = lanes.of(ev);
    const ts = ev.tsUs - t0;
    emit({ name: ev.kind, cat: ev.kind.split(".")[0], ph: "X", ts, dur: 1, pid, tid, args: argsOf(evidence, ev) });
    const key = spanKey(ev);
    if (key && (ev.kind === "coll.enter" || ev.kind === "kv.post")) open.set(key, ev);
    if (key && (ev.kind === "coll.exit" || ev.kind === "kv.done")) {
      const start = open.get(key);
      if (start) {
        open.delete(key);
        emit(spanOf(start, ev.tsUs, t0, pid, tid, false));
      }
    }
    if (ev.kind === "kv.post" && ev.room !== null) posts.set(`${ev.room}|${ev.chunk}`, { ev, pid, tid });
    if (ev.kind === "kv.notify" && ev.room !== null) {
      const post = posts.get(`${ev.room}|${ev.chunk}`);
      if (post) {
        flowId++;
        emit({ name: "kv.post → kv.notify", cat: "flow", ph: "s", id: flowId, ts: post.ev.tsUs - t0, pid: post.pid, tid: post.tid });
        emit({ name: "kv.post → kv.notify", cat: "flow", ph: "f", bp: "e", id: flowId, ts, pid, tid });
      }
    }
    for (const field of GAUGE_FIELDS) {
      const v = ev.kind.startsWith("batch.") ? ev.attrs?.[field] : undefined;
      if (typeof v === "number") emit({ name: field, ph: "C", ts, pid, args: { [field]: v } });
    }
  }
  for (const start of open.values()) {
    const { pid, tid } = lanes.of(start);
    emit(spanOf(start, t1, t0, pid, tid, true));
  }
  for (const f of violatedFindingMarks(db)) {
    emit({ name: `${f.id} ${f.rule}`, cat: "finding", ph: "i", s: "g", ts: f.tsUs - t0, pid: 0, tid: 0, args: { severity: f.severity, title: f.title } });
  }
  write(`\n],"displayTimeUnit":"ms","otherData":${JSON.stringify({ source: "kvrewind", startUs: t0, start: isoTime(t0) })}}\n`);
  return { traceEvents: count };
}

/** Process and thread ids per (host, role) and rank, announced with their names on first use. */
class Lanes {
  private readonly pids = new Map<string, number>();
  private readonly tids = new Set<string>();

  constructor(private readonly evidence: Evidence, private readonly emit: (e: TraceEvent) => void) {}

  of(ev: StoredEvent): { pid: number; tid: number } {
    const pKey = `${ev.host ?? "?"} ${ev.role ?? "unknown"}`;
    let pid = this.pids.get(pKey);
    if (pid === undefined) {
      pid = this.pids.size + 1;
      this.pids.set(pKey, pid);
      this.emit({ name: "process_name", ph: "M", pid, args: { name: pKey } });
      this.emit({ name: "process_sort_index", ph: "M", pid, args: { sort_index: pid } });
    }
    const tid = ev.tp === null ? 0 : ev.tp + 1;
    if (!this.tids.has(`${pid}/${tid}`)) {
      this.tids.add(`${pid}/${tid}`);
      this.emit({ name: "thread_name", ph: "M", pid, tid, args: { name: this.evidence.rank(ev) } });
    }
    return { pid, tid };
  }
}


function spanKey(ev: StoredEvent): string | undefined {
  const rank = `${ev.host}|${ev.role}|${ev.tp}`;
  if (ev.kind === "coll.enter" || ev.kind === "coll.exit") return `coll|${rank}|${String(ev.attrs?.group)}|${String(ev.attrs?.seq)}`;
  if ((ev.kind === "kv.post" || ev.kind === "kv.done") && ev.room !== null) return `kv|${rank}|${ev.room}|${ev.chunk}`;
  return undefined;
}

function spanOf(start: StoredEvent, endUs: number, t0: number, pid: number, tid: number, unfinished: boolean): TraceEvent {
  const name = start.kind === "coll.enter" ? `${String(start.attrs?.op ?? "collective")} #${String(start.attrs?.seq)}` : `kv transfer ${start.room} chunk ${start.chunk}`;
  return {
    name,
    cat: start.kind === "coll.enter" ? "collective" : "transfer",
    ph: "X",
    ts: start.tsUs - t0,
    dur: Math.max(1, endUs - start.tsUs),
    pid,
    tid,
    args: { ...(start.attrs ?? {}), ...(start.room !== null && { room: start.room }), startSeq: start.seq, unfinished },
  };
}

function argsOf(evidence: Evidence, ev: StoredEvent): Record<string, unknown> {
  return {
    seq: ev.seq,
    line: evidence.where(ev),
    ...(ev.room !== null && { room: ev.room }),
    ...(ev.rid !== null && { rid: ev.rid }),
    ...(ev.chunk !== null && { chunk: ev.chunk }),
    ...(ev.state !== null && { state: ev.state }),
    text: ev.text.length > TEXT_MAX ? `${ev.text.slice(0, TEXT_MAX)}…` : ev.text,
  };
}
