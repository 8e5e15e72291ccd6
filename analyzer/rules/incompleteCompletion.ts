// incomplete-completion: decode treated a room's transfer as done while part
// of it had not arrived. NIXL's TransferStatus.is_done() needs every KV chunk
// of every source, the aux notification and, when the metadata asked for it,
// the state (sglang-pd-logs-and-protocol.md §6). The model flags a Success
// poll its own TransferStatus does not back; a notification of the room that
// reaches the same decode rank after its Success poll shows the same gap from
// the records alone (metadata that asked for no state, so is_done() never
// waited for it: DESIGN.md incident 7).

import { LogKind } from "../../ingest/event.js";
import type { StoredEvent } from "../../ingest/store/queries.js";
import { KVPoll, type Violation } from "../model/api.js";
import { attrString, seconds, type Evidence } from "./evidence.js";
import { at, modelRule } from "./modelRule.js";

export const incompleteCompletion = modelRule({
  id: "incomplete-completion",
  needs: ["probe kv.poll (decode) and kv.notify records", "probe kv.meta (what the metadata asked for)"],
  severity: "high",
  title: (v, more) => `Room ${v.room ?? "?"} completed without all of its transfer${more ? ` (+${more} more)` : ""}`,
  explain: (v, [meta], evidence) =>
    `Let room ${v.room ?? "?"}'s metadata go to prefill (${at(evidence, meta)}) and ${v.rank ?? "decode"} take the room as transferred (${at(evidence, evidence.event(v.seq))}). ` +
    `Then TransferStatus.is_done() must have seen every KV chunk of every source, the aux notification and the state (§6), ` +
    `but ${v.message}.`,
  falsify: "Rerun with the index-K state requested in the metadata (state indices non-empty, so is_done() waits for the state notification); the room must then complete only after it.",
  derive: ({ evidence }) => lateNotifications(evidence),
});

/** Per (room, decode rank): a kv.notify that arrives after the rank's first Success poll. */
function lateNotifications(evidence: Evidence): Violation[] {
  const success = new Map<string, StoredEvent>();
  for (const ev of evidence.of("kv.poll")) {
    if (ev.role !== "decode" || ev.room === null || ev.state !== KVPoll.Success) continue;
    const key = `${ev.room}|${evidence.rank(ev)}`;
    if (!success.has(key)) success.set(key, ev);
  }
  const out: Violation[] = [];
  const flagged = new Set<string>();
  for (const n of evidence.of("kv.notify")) {
    if (n.room === null) continue;
    const rank = evidence.rank(n);
    const key = `${n.room}|${rank}`;
    const done = success.get(key);
    if (!done || n.seq < done.seq || flagged.has(key)) continue;
    flagged.add(key);
    const meta = lastBefore(evidence, n.room, rank, done.seq);
    const tag = attrString(n, "tag") ?? n.kind;
    out.push({
      check: "incomplete-completion",
      seq: done.seq,
      tsUs: done.tsUs,
      room: n.room,
      rank,
      witness: [meta?.seq ?? -1, done.seq, n.seq],
      message: `notification ${tag} reached ${rank} ${seconds(n.tsUs - done.tsUs)} after its Success poll (${evidence.where(n)})${noState(meta) ? `; the metadata (${evidence.where(meta!)}) carried no state indices, so is_done() did not wait for it` : ""}`,
      detail: { lateTag: tag, lateByUs: n.tsUs - done.tsUs },
    });
  }
  return out;
}

/** The metadata named no state pages: decode's TransferStatus then does not expect a state notification. */
function noState(meta: StoredEvent | undefined): boolean {
  const pages = meta?.attrs?.state_pages;
  return Array.isArray(pages) && pages.length === 0;
}

/** The room's last kv.meta on that decode rank before `seq` (what the metadata asked for). */
function lastBefore(evidence: Evidence, room: string, rank: string, seq: number): StoredEvent | undefined {
  return evidence.of("kv.meta").filter((m) => m.room === room && m.seq < seq && evidence.rank(m) === rank).at(-1)
    ?? evidence.of(LogKind.metadataSent).filter((m) => m.room === room && m.seq < seq && evidence.rank(m) === rank).at(-1);
}
