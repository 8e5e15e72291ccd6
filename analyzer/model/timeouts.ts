// Modelled timeouts and stuck rooms (docs/protocol.md §5.1, §5.2, §7.1): a decode
// receiver in WaitingForInput past SGLANG_DISAGGREGATION_WAITING_TIMEOUT, a
// prefill sender in Bootstrapping past the bootstrap timeout (where the
// profile has one). They fire only where the incident shows completions for
// that side (notifications/polls on decode, bootstrap frames on prefill):
// without that evidence a room that merely looks silent is not a stall.

import { type EventPlace } from "./api.js";
import { KVPoll } from "../../domain/vocabulary.js";
import { SEEN, type ModelState } from "./state.js";
import { decodeTimedOut, prefillStuck, prefillTimedOut } from "./stalls.js";

export function fireTimeouts(s: ModelState, ev: EventPlace): void {
  const now = ev.tsUs;
  const decodeVisible = (s.seen & (SEEN.notify | SEEN.decodePoll)) !== 0;
  const prefillVisible = (s.seen & SEEN.bootFrames) !== 0;
  let next = Infinity;
  const storedNext = s.rooms.forEachDueBy(now, (r) => {
    for (const d of r.decode.values()) {
      const due = d.waitingDeadlineUs(s.profile);
      if (due === Infinity) continue;
      if (due <= now && decodeVisible) {
        d.poll(s.profile.backend, ev.seq);
        if (d.concluded === null) decodeTimedOut(s, r, d, ev, "model");
      } else if (due < next) next = due;
    }
    for (const p of r.prefill.values()) {
      const due = p.bootstrapDeadlineUs(s.profile);
      if (due === Infinity) continue;
      if (due <= now && prefillVisible && p.poll() === KVPoll.Bootstrapping) prefillTimedOut(s, r, p, ev, "model");
      else if (due < next) next = due;
    }
  });
  s.nextDeadlineUs = Math.min(next, storedNext);
}

/**
 * At the end: prefill rooms still in Bootstrapping on a rank whose bootstrap
 * thread died before they arrived. NIXL before v0.5.18 has no prefill
 * bootstrap timeout, so nothing else ever reports them (§7.1, §5.1).
 */
export function stuckOnDeadThreads(s: ModelState, end: EventPlace): void {
  for (const r of s.rooms.records()) {
    for (const p of r.prefill.values()) {
      const t = s.threads.get(p.rank);
      if (t === undefined || t.alive || t.diedSeq === null || p.initSeq < t.diedSeq) continue;
      if (p.poll() !== KVPoll.Bootstrapping) continue;
      prefillStuck(s, r, p, end, t.diedSeq, t.abortSeq);
    }
  }
}
