// The hand-read transfer lines (ingest/formats/sglang/hotTransferLines.ts)
// against the templates' general reading: every such line of the fixtures and
// of the hand-written bundles, and the near misses the hand readers leave to
// the general reading. The reference readings here are written from
// docs/log-templates.md and docs/protocol.md §6, not taken from the code.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { ParsedEvent } from "../../domain/event.js";
import { LogKind } from "../../domain/kinds.js";
import { readBootstrapped, readGotInfo, readKvNotifSent } from "../../ingest/formats/sglang/hotTransferLines.js";
import { parseNotifTag } from "../../domain/notifTag.js";
import { PrefixReader, PrefixResult } from "../../ingest/formats/sglang/prefix.js";
import { parseOne } from "./sglangHarness.js";

const ROOM = "8972542885242963296";
const TS = "[2026-08-20 10:20:01.250 DP0 TP3]";
const SENDING = "sending kvcache to ";
const WITH_NOTIF = " with notif ";

function blank(): ParsedEvent {
  return { tsUs: 0, line: 1, kind: LogKind.unparsed, text: "" };
}

/** `sending kvcache to {peer} with notif {tag}` as §3.2 and §6 read it, or null. */
function referenceNotif(message: string): Partial<ParsedEvent> | null {
  if (!message.startsWith(SENDING)) return null;
  const sep = message.lastIndexOf(WITH_NOTIF);
  const tagText = message.slice(sep + WITH_NOTIF.length);
  const tag = parseNotifTag(tagText);
  if (sep < SENDING.length || tag === null || tag.tagKind !== "kv" || tag.src === undefined) return null;
  return {
    kind: LogKind.notifSent,
    role: "prefill",
    room: tag.room,
    chunk: tag.chunk,
    attrs: { peer: message.slice(SENDING.length, sep), tag: tagText, tagKind: "kv", isLast: tag.isLast, src: tag.src },
  };
}

const GOT_INFO = /^got info room=(\d+) agent_name=(?:'([^']*)'|"([^"]*)") required_dst_info_num=(\d+)/s;
const BOOTSTRAPPED = /^room=(\d+) is bootstrapped/s;

function referenceGotInfo(message: string): Partial<ParsedEvent> | null {
  const m = GOT_INFO.exec(message);
  if (m === null) return null;
  return { kind: LogKind.gotInfo, role: "prefill", room: m[1], attrs: { agentName: m[2] ?? m[3], requiredDstInfoNum: Number(m[4]) } };
}

function referenceBootstrapped(message: string): Partial<ParsedEvent> | null {
  const m = BOOTSTRAPPED.exec(message);
  return m === null ? null : { kind: LogKind.bootstrapped, role: "prefill", room: m[1], state: 2 };
}

/** The hand readers on a message: the fields they set, or null when they decline it. */
function hotReading(message: string): Partial<ParsedEvent> | null {
  const ev = blank();
  let read = false;
  if (message.startsWith(SENDING)) {
    const sep = message.lastIndexOf(WITH_NOTIF);
    read = sep > SENDING.length && readKvNotifSent(message, SENDING.length, sep, sep + WITH_NOTIF.length, ev);
  } else if (message.startsWith("got info ")) {
    read = readGotInfo(message, "got info ".length, ev);
  } else if (message.startsWith("room=")) {
    read = readBootstrapped(message, 0, ev);
  }
  if (!read) return null;
  const { tsUs: _ts, line: _line, text: _text, ...fields } = ev;
  return fields;
}

function reference(message: string): Partial<ParsedEvent> | null {
  return referenceNotif(message) ?? referenceGotInfo(message) ?? referenceBootstrapped(message);
}

function logFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return logFiles(path);
    return name.endsWith(".log") || name.endsWith(".stderr") || name.endsWith(".txt") ? [path] : [];
  });
}

test("every notif, got-info and bootstrapped line of the fixtures and bundles reads as the templates say", () => {
  const prefix = new PrefixReader(0);
  let lines = 0;
  let handled = 0;
  for (const file of [...logFiles("fixtures/incidents"), ...logFiles("test/bundles")]) {
    for (const line of readFileSync(file, "utf8").split("\n")) {
      const at = line.indexOf("[");
      if (at < 0 || prefix.read(line.slice(at)) !== PrefixResult.ok) continue;
      const message = line.slice(at + prefix.msgStart);
      const expected = reference(message);
      const hot = hotReading(message);
      if (expected === null && hot === null) continue;
      lines++;
      if (hot !== null) handled++;
      // The hand readers take only the common shapes; whatever they take they read as the reference does.
      if (hot !== null) assert.deepEqual(hot, expected, `${file}: ${line}`);
    }
  }
  assert.ok(lines > 300, `only ${lines} transfer lines found`);
  assert.equal(handled, lines, "a fixture line of a common shape was left to the general reading");
});

test("near misses are left to the general reading, which still reads them", () => {
  const declined = [
    `sending kvcache to d0-tp3 with notif ${ROOM}_kv_0_1`, // before #15027: no src
    `sending kvcache to d0-tp3 with notif ${ROOM}_kv_4_1_3_part_1_2`,
    `sending kvcache to d0-tp3 with notif ${ROOM}_kv_1234567890123456_0_3`, // chunk past notifTag.ts's 15 digits
    `sending kvcache to d0-tp3 with notif ${ROOM}_kv_2_2_3`, // is_last neither 0 nor 1
    `sending kvcache to d0-tp3 with notif ${ROOM}_aux`,
    `got info room=${ROOM} agent_name='d0-tp3 required_dst_info_num=1`, // no closing quote
    `got info room=${ROOM} agent_name=None required_dst_info_num=1`,
    `room=${ROOM} is bootstrapping`,
  ];
  for (const message of declined) assert.equal(hotReading(message), null, message);

  const fourField = parseOne(`${TS} sending kvcache to d0-tp3 with notif ${ROOM}_kv_0_1`);
  assert.equal(fourField.kind, LogKind.notifSent);
  assert.deepEqual(fourField.attrs, { peer: "d0-tp3", tag: `${ROOM}_kv_0_1`, tagKind: "kv", isLast: true });
  const part = parseOne(`${TS} sending kvcache to d0-tp3 with notif ${ROOM}_kv_4_1_3_part_1_2`);
  assert.deepEqual(part.attrs, { peer: "d0-tp3", tag: `${ROOM}_kv_4_1_3_part_1_2`, tagKind: "kv_part", isLast: true, src: 3, part: 1, parts: 2 });
  assert.equal(part.chunk, 4);
});

test("the common shapes in their variants: either quote, a peer with spaces, text after bootstrapped", () => {
  const doubleQuoted = parseOne(`${TS} got info room=${ROOM} agent_name="d0 tp3" required_dst_info_num=2`);
  assert.deepEqual([doubleQuoted.kind, doubleQuoted.room, doubleQuoted.attrs], [LogKind.gotInfo, ROOM, { agentName: "d0 tp3", requiredDstInfoNum: 2 }]);
  // The tag follows the last ` with notif `: a peer name may hold the words.
  const peer = parseOne(`${TS} sending kvcache to odd with notif peer with notif ${ROOM}_kv_7_0_12`);
  assert.deepEqual(peer.attrs, { peer: "odd with notif peer", tag: `${ROOM}_kv_7_0_12`, tagKind: "kv", isLast: false, src: 12 });
  assert.deepEqual([peer.room, peer.chunk, peer.tp, peer.dp], [ROOM, 7, 3, 0]);
  const boot = parseOne(`${TS} room=${ROOM} is bootstrapped (2 destinations)`);
  assert.deepEqual([boot.kind, boot.room, boot.state], [LogKind.bootstrapped, ROOM, 2]);
});
