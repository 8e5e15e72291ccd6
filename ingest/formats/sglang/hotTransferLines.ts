// The transfer thread's three most frequent lines, read character by
// character: a PD prefill log at debug level is mostly
//   sending kvcache to {peer} with notif {room}_kv_{chunk}_{is_last}_{src}
//   got info room={room} agent_name='{name}' required_dst_info_num={n}
//   room={room} is bootstrapped
// (nearly all of the lines of such a log). Each reader fills
// the event the template's general reading in transferLines.ts and
// notifTag.ts fills, without a regex match, a tag object or a copy of its
// fields, and returns false on anything but the common shape, which the
// general reading then decides: the templates stay defined once there, and
// a test holds the two readings to the same events.

import type { ParsedEvent } from "../../../domain/event.js";
import { LogKind } from "../../../domain/kinds.js";
import { digitsEnd } from "../numerals.js";

const UNDERSCORE = 95;
const KV_FIELD = "_kv_";
const AGENT_NAME = " agent_name=";
const DST_INFO_NUM = " required_dst_info_num=";
const IS_BOOTSTRAPPED = " is bootstrapped";
/** notifTag.ts reads a numeric field of at most this many digits. */
const MAX_FIELD_DIGITS = 15;

/** The digits s[from, to) as a number (callers bound them to MAX_FIELD_DIGITS: exact). */
function digitsValue(s: string, from: number, to: number): number {
  let v = 0;
  for (let i = from; i < to; i++) v = v * 10 + (s.charCodeAt(i) - 48);
  return v;
}

/**
 * `sending kvcache to {peer} with notif {tag}` whose tag is the five-field kv
 * form (§6, since #15027): the peer is line[peerStart, sep), the tag runs from
 * `tagStart` to the end of the line.
 */
export function readKvNotifSent(line: string, peerStart: number, sep: number, tagStart: number, ev: ParsedEvent): boolean {
  const roomEnd = digitsEnd(line, tagStart);
  if (roomEnd === tagStart || !line.startsWith(KV_FIELD, roomEnd)) return false;
  const chunkStart = roomEnd + KV_FIELD.length;
  const chunkEnd = digitsEnd(line, chunkStart);
  if (chunkEnd === chunkStart || chunkEnd - chunkStart > MAX_FIELD_DIGITS || line.charCodeAt(chunkEnd) !== UNDERSCORE) return false;
  const flag = line.charCodeAt(chunkEnd + 1);
  if ((flag !== 48 && flag !== 49) || line.charCodeAt(chunkEnd + 2) !== UNDERSCORE) return false;
  const srcStart = chunkEnd + 3;
  const srcEnd = digitsEnd(line, srcStart);
  if (srcEnd === srcStart || srcEnd - srcStart > MAX_FIELD_DIGITS || srcEnd !== line.length) return false;
  ev.kind = LogKind.notifSent;
  ev.role = "prefill";
  ev.room = line.substring(tagStart, roomEnd);
  ev.chunk = digitsValue(line, chunkStart, chunkEnd);
  // The attrs of the general reading: the peer, the tag, then the tag's fields but room and chunk, in the tag's order.
  ev.attrs = {
    peer: line.substring(peerStart, sep),
    tag: line.substring(tagStart),
    tagKind: "kv",
    isLast: flag === 49,
    src: digitsValue(line, srcStart, srcEnd),
  };
  return true;
}

/** `room={room} agent_name='{name}' required_dst_info_num={n}` at `at` (after `got info `), either quote. */
export function readGotInfo(line: string, at: number, ev: ParsedEvent): boolean {
  if (!line.startsWith("room=", at)) return false;
  const roomStart = at + 5;
  const roomEnd = digitsEnd(line, roomStart);
  if (roomEnd === roomStart || !line.startsWith(AGENT_NAME, roomEnd)) return false;
  const quoteAt = roomEnd + AGENT_NAME.length;
  const quote = line.charCodeAt(quoteAt);
  if (quote !== 39 && quote !== 34) return false;
  const close = line.indexOf(quote === 39 ? "'" : '"', quoteAt + 1);
  if (close < 0 || !line.startsWith(DST_INFO_NUM, close + 1)) return false;
  const numStart = close + 1 + DST_INFO_NUM.length;
  const numEnd = digitsEnd(line, numStart);
  if (numEnd === numStart) return false;
  ev.kind = LogKind.gotInfo;
  ev.role = "prefill";
  ev.room = line.substring(roomStart, roomEnd);
  ev.attrs = { agentName: line.substring(quoteAt + 1, close), requiredDstInfoNum: Number(line.substring(numStart, numEnd)) };
  return true;
}

/** `room={room} is bootstrapped` at `at`. */
export function readBootstrapped(line: string, at: number, ev: ParsedEvent): boolean {
  if (!line.startsWith("room=", at)) return false;
  const roomStart = at + 5;
  const roomEnd = digitsEnd(line, roomStart);
  if (roomEnd === roomStart || !line.startsWith(IS_BOOTSTRAPPED, roomEnd)) return false;
  ev.kind = LogKind.bootstrapped;
  ev.role = "prefill";
  ev.room = line.substring(roomStart, roomEnd);
  // [inference] as in transferLines.ts: the bootstrap thread moves the room Bootstrapping -> WaitingForInput (§5.1).
  ev.state = 2;
  return true;
}
