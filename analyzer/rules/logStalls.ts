// A scheduler that stopped while its server went on, read from the logs: a rank's last batch line shows requests
// waiting to run, the rank writes no batch line after it, and the same server goes on for longer than a silence takes
// to count (gaps/silence.ts) — its HTTP access lines, or any other line of the server's own log (another rank's
// batches, a warning, a health check). SGLang's scheduler takes waiting requests into its next batch and prints a
// prefill batch line for every prefill batch and a decode batch line every `decode_log_interval` steps while requests
// run (python/sglang/srt/managers/scheduler.py, later scheduler_metrics_mixin.py, log_prefill_stats and
// log_decode_stats, whose `#queue-req` is `len(self.waiting_queue)`): with requests waiting, the next line comes within
// seconds. Requests still running at the last line are no such sign: they may all finish before the next interval,
// and an idle scheduler prints nothing. The HTTP server is another process (the tokenizer manager's uvicorn), so its
// answers show the server alive around a scheduler that ran no batch — the log's side of telemetryFailures.ts's
// stopped progress counter, and the same class of failure. A log that merely ends says nothing: a paste or a
// collection may stop anywhere.

import { LogKind } from "../../domain/kinds.js";
import type { EventCursor } from "../../store/blocks/eventCursor.js";
import type { Reading } from "../../store/blocks/pass.js";
import { attrNumber, isoTime, type Evidence } from "./evidence.js";
import type { FailureRecord } from "./failures.js";
import { GAP_MIN_US } from "./gaps/silence.js";
import { stepFrom } from "../../store/read/seqs.js";
import type { StoredEvent } from "../../store/read/events.js";

const BATCH_KINDS: readonly string[] = [LogKind.prefillBatch, LogKind.decodeBatch];
const ANSWER_KINDS: readonly string[] = [LogKind.httpAccess, LogKind.httpFailed];

/** Each rank's last batch line and each server's last HTTP answer, by seq, from the rules' one pass over the blocks. */
export interface LastRecords {
  batchByRank: Map<string, number>;
  answerByServer: Map<string, number>;
}

const serverKey = (host: string | null, role: string | null): string => `${host}\u0001${role}`;

/** The reading process-failure adds to the shared pass: a map update per batch line and per access line, no attribute decoded. */
export function lastRecordsReading(): Reading<LastRecords> {
  const batchByRank = new Map<string, number>();
  const answerByServer = new Map<string, number>();
  const batch = (ev: EventCursor): void => void batchByRank.set(`${serverKey(ev.host, ev.role)}\u0001${ev.tp}`, ev.seq);
  const answer = (ev: EventCursor): void => void answerByServer.set(serverKey(ev.host, ev.role), ev.seq);
  return { readers: [{ kinds: BATCH_KINDS, visit: batch }, { kinds: ANSWER_KINDS, visit: answer }], finish: () => ({ batchByRank, answerByServer }) };
}

/** Ranks whose scheduler stopped with requests waiting while their server answered; `deaths` are the fatal records, which explain a stop. */
export function stalledSchedulers(evidence: Evidence, last: LastRecords, deaths: readonly FailureRecord[]): FailureRecord[] {
  const out: FailureRecord[] = [];
  for (const seq of last.batchByRank.values()) {
    const batch = evidence.event(seq)!;
    if (batch.host === null) continue;
    const queued = attrNumber(batch, "#queue-req") ?? 0;
    if (queued === 0) continue;
    // A death of the server's explains its silence (process-failure reports that death).
    if (deaths.some((d) => d.ev.host === batch.host && d.ev.role === batch.role)) continue;
    const answerSeq = last.answerByServer.get(serverKey(batch.host, batch.role));
    const answer = answerSeq === undefined ? undefined : evidence.event(answerSeq)!;
    const answered = answer !== undefined && answer.tsUs - batch.tsUs >= GAP_MIN_US;
    const later = answered ? answer : laterLineOfServer(evidence, batch);
    if (later === undefined) continue;
    const running = attrNumber(batch, "#running-req");
    const wentOn = answered ? `the server went on answering HTTP to ${isoTime(later.tsUs)}` : `its server went on logging to ${isoTime(later.tsUs)} (${evidence.where(later)})`;
    out.push({
      ev: batch,
      family: "process",
      cls: "scheduler-hang",
      fatal: false,
      shown: true,
      rank: evidence.rank(batch),
      witness: [later],
      signature: `process|scheduler-hang|${batch.kind}`,
      summary: `no batch after ${isoTime(batch.tsUs)}, with ${queued} request(s) waiting to run${running ? ` and ${running} running` : ""}, while ${wentOn}`,
    });
  }
  return out.sort((a, b) => a.ev.seq - b.ev.seq);
}

/**
 * Engines whose periodic statistics show running requests and no token made: vLLM's front-end prints the engine's
 * throughputs every interval whatever its engine core does (ingest/formats/templates/engines/vllmStats.ts), so a
 * line with requests running while both throughputs are zero is an interval in which the engine ran no step. One
 * record per run of such lines of one engine; a death of the same server explains the stop (process-failure reports it).
 */
export function idleEngines(evidence: Evidence, deaths: readonly FailureRecord[]): FailureRecord[] {
  const out: FailureRecord[] = [];
  const runs = new Map<string, StoredEvent[]>();
  const close = (key: string): void => {
    const run = runs.get(key);
    runs.delete(key);
    if (run === undefined || deaths.some((d) => d.ev.host === run[0]!.host && d.ev.role === run[0]!.role)) return;
    out.push(idleRecord(evidence, run));
  };
  for (const ev of evidence.of(LogKind.engineStats)) {
    const key = `${ev.sourceId}\u0001${attrNumber(ev, "engine") ?? ""}`;
    const running = attrNumber(ev, "running") ?? 0;
    const idle = running > 0 && attrNumber(ev, "promptTps") === 0 && attrNumber(ev, "generationTps") === 0;
    if (!idle) close(key);
    else if (runs.has(key)) runs.get(key)!.push(ev);
    else runs.set(key, [ev]);
  }
  for (const key of [...runs.keys()]) close(key);
  return out.sort((a, b) => a.ev.seq - b.ev.seq);
}

function idleRecord(evidence: Evidence, run: readonly StoredEvent[]): FailureRecord {
  const first = run[0]!;
  const last = run[run.length - 1]!;
  const running = attrNumber(last, "running");
  const waiting = attrNumber(last, "waiting");
  const span = run.length > 1 ? ` on ${run.length} lines to ${isoTime(last.tsUs)}` : "";
  return {
    ev: first,
    family: "process",
    cls: "scheduler-hang",
    fatal: false,
    shown: true,
    rank: evidence.rank(first),
    witness: run.length > 1 ? [last] : [],
    signature: `process|scheduler-hang|${first.kind}`,
    summary:
      `the engine's statistics show ${running} request(s) running${waiting ? ` and ${waiting} waiting` : ""} and no token made ` +
      `(prompt and generation throughput 0.0 tokens/s) from ${isoTime(first.tsUs)}${span}`,
  };
}

/**
 * The first line of the batch's server (its host and role), other than that rank's batch lines, written a silence's
 * length after the batch, in the batch's own log or another of its server's that goes on that long (the sources'
 * statistics say which before any scan).
 */
function laterLineOfServer(evidence: Evidence, batch: StoredEvent): StoredEvent | undefined {
  const fromUs = batch.tsUs + GAP_MIN_US;
  const own = evidence.source(batch.sourceId)?.stream;
  for (const source of evidence.sources()) {
    const ofServer = source.stream === own || (source.host === batch.host && source.role === batch.role);
    if (!ofServer || source.lastTsUs === null || source.lastTsUs < fromUs) continue;
    const seq = stepFrom(evidence.db, batch.seq, "next", { sourceId: source.id, fromUs }, (ev) => ev.host === batch.host && ev.role === batch.role && !(BATCH_KINDS.includes(ev.kind) && ev.tp === batch.tp));
    if (seq !== null) return evidence.event(seq);
  }
  return undefined;
}
