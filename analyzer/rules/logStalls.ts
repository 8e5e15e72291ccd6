// A scheduler that stopped while its server went on answering, read from the logs: a rank's last batch line shows
// requests waiting to run, the rank writes no batch line after it, and the same server's HTTP access lines go on for
// longer than a silence takes to count (gaps/silence.ts). SGLang's scheduler takes waiting requests into its next
// batch and prints a prefill batch line for every prefill batch and a decode batch line every `decode_log_interval`
// steps while requests run (scheduler.py get_next_batch_to_run, log_prefill_stats, log_decode_stats): with requests
// waiting, the next line comes within seconds. Requests still running at the last line are no such sign: they may
// all finish before the next interval, and an idle scheduler prints nothing. The HTTP server is another process (the
// tokenizer manager's uvicorn), so its answers show the server alive around a scheduler that ran no batch — the
// log's side of telemetryFailures.ts's stopped progress counter, and the same class of failure.

import { LogKind } from "../../domain/kinds.js";
import { hostRecordsFrom, lastRecordOfRank } from "../../store/read/ranks.js";
import { attrNumber, isoTime, type Evidence } from "./evidence.js";
import type { FailureRecord } from "./failures.js";
import { GAP_MIN_US } from "./gaps/silence.js";

const BATCH_KINDS = [LogKind.prefillBatch, LogKind.decodeBatch];
const ANSWER_KINDS = [LogKind.httpAccess, LogKind.httpFailed];

/** Ranks whose scheduler stopped with requests waiting while their server answered; `deaths` are the fatal records read so far, which explain a stop. */
export function stalledSchedulers(evidence: Evidence, deaths: readonly FailureRecord[]): FailureRecord[] {
  const out: FailureRecord[] = [];
  for (const row of evidence.rankRows()) {
    if (row.host === null) continue;
    const last = lastRecordOfRank(evidence.db, { host: row.host, role: row.role, tp: row.tp }, BATCH_KINDS);
    if (last === undefined) continue;
    const batch = evidence.event(last.seq)!;
    const queued = attrNumber(batch, "#queue-req") ?? 0;
    if (queued === 0) continue;
    // A death of the server's explains its silence (process-failure reports that death).
    if (deaths.some((d) => d.ev.host === row.host && d.ev.role === row.role)) continue;
    const answers = hostRecordsFrom(evidence.db, row.host, row.role, ANSWER_KINDS, last.tsUs + 1);
    const answer = answers.lastSeq === null ? undefined : evidence.event(answers.lastSeq)!;
    if (answer === undefined || answer.tsUs - last.tsUs < GAP_MIN_US) continue;
    const running = attrNumber(batch, "#running-req");
    out.push({
      ev: batch,
      family: "process",
      cls: "scheduler-hang",
      fatal: false,
      shown: true,
      rank: evidence.rank(batch),
      witness: [answer],
      signature: `process|scheduler-hang|${batch.kind}`,
      summary: `no batch after ${isoTime(last.tsUs)}, with ${queued} request(s) waiting to run${running ? ` and ${running} running` : ""}, while the server answered ${answers.count} HTTP request(s) to ${isoTime(answer.tsUs)}`,
    });
  }
  return out;
}
