// incomplete-completion: decode treated a room's transfer as done while part
// of it had not arrived. NIXL's TransferStatus.is_done() needs every KV chunk
// of every source, the aux notification and, when the metadata asked for it,
// the state (docs/protocol.md §6). The model flags a Success
// poll its own TransferStatus does not back; a notification of the room that
// reaches the same decode rank after its Success poll shows the same gap from
// the records alone (metadata that asked for no state, so is_done() never
// waited for it: DESIGN.md incident 7).

import { LogKind } from "../../domain/kinds.js";
import { notifiesAfterSuccessReading } from "../../store/read/records.js";
import { eventsOfRoom, type StoredEvent } from "../../store/read/events.js";
import { type Violation } from "../model/api.js";
import { KVPoll } from "../../domain/vocabulary.js";
import { decodeAs } from "../events/decode.js";
import { seconds, type Evidence } from "./evidence.js";
import { at, modelRule } from "./modelRule.js";

export const incompleteCompletion = modelRule({
  id: "incomplete-completion",
  needs: ["probe kv.poll (decode) and kv.notify records", "probe kv.meta (what the metadata asked for)"],
  restsOn: ["backend"],
  severity: "high",
  title: (v, more) => `Room ${v.room ?? "?"} completed without all of its transfer${more ? ` (+${more} more room(s))` : ""}`,
  explain: (v, [meta], evidence) =>
    `Let room ${v.room ?? "?"}'s metadata go to prefill (${at(evidence, meta)}) and ${v.rank ?? "decode"} take the room as transferred (${at(evidence, evidence.event(v.seq))}). ` +
    `Then TransferStatus.is_done() must have seen every KV chunk of every source, the aux notification and the state (docs/protocol.md §6), ` +
    `but ${v.message}.`,
  falsify: "Rerun with the index-K state requested in the metadata (state indices non-empty, so is_done() waits for the state notification); the room must then complete only after it.",
  reading: (evidence) => notifiesAfterSuccessReading(evidence.db, KVPoll.Success),
  derive: ({ evidence }, late) => lateNotifications(evidence, late),
  // A notification after Success, a commit before the metadata landed, or Success before is_done().
  mechanism: (v) => (v.detail.lateTag !== undefined ? "late-notification" : v.detail.metadataBufferIndex !== undefined ? "metadata-not-ready" : "success-before-done"),
});

/** Per (room, decode rank): a kv.notify that arrives after the rank's first Success poll. */
function lateNotifications(evidence: Evidence, late: readonly { doneSeq: number; lateSeq: number }[]): Violation[] {
  return late.map(({ doneSeq, lateSeq }) => {
    const done = evidence.event(doneSeq)!;
    const n = evidence.event(lateSeq)!;
    const rank = evidence.rank(done);
    const meta = lastBefore(evidence, done.room!, rank, done.seq);
    const tag = decodeAs(n, "kv.notify")?.tag ?? n.kind;
    return {
      check: "incomplete-completion" as const,
      seq: done.seq,
      tsUs: done.tsUs,
      room: done.room!,
      rank,
      witness: [meta?.seq ?? -1, done.seq, n.seq],
      message: `notification ${tag} reached ${rank} ${seconds(n.tsUs - done.tsUs)} after its Success poll (${evidence.where(n)})${noState(meta) ? `; the metadata (${evidence.where(meta!)}) carried no state indices, so is_done() did not wait for it` : ""}`,
      detail: { lateTag: tag, lateByUs: n.tsUs - done.tsUs },
    };
  });
}

/** The metadata named no state pages: decode's TransferStatus then does not expect a state notification. */
function noState(meta: StoredEvent | undefined): boolean {
  const pages = meta === undefined ? undefined : decodeAs(meta, "kv.meta")?.state_pages;
  return Array.isArray(pages) && pages.length === 0;
}

/** The room's last kv.meta (or metadata-sent line) on that decode rank before `seq`: what the metadata asked for. */
function lastBefore(evidence: Evidence, room: string, rank: string, seq: number): StoredEvent | undefined {
  const kinds = ["kv.meta", LogKind.metadataSent];
  return eventsOfRoom(evidence.db, room).filter((m) => kinds.includes(m.kind) && m.seq < seq && evidence.rank(m) === rank).at(-1);
}
