// The parse takes the anchors of a source's first 5,000 anchoring events,
// and past them only of those stamped in a second ending in 0
// (ingest/load/sourceFacts.ts FULL_ANCHOR_EVENTS): a hand-written prefill log
// of 14,000 notification lines (several read chunks, CRLF line ends on some)
// gives anchors for exactly the rooms the rule keeps.

import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseTimeZone } from "../../ingest/inputs/pathIdentity.js";
import { sniffSource } from "../../ingest/inputs/sniff.js";
import { runParse } from "../../ingest/load/workers.js";
import { RunStore } from "../../ingest/load/runStore.js";
import { scratchDir } from "../scratchDir.js";

const LINES = 14_000;
/** Notification i is on line i + 2 (a batch line, which anchors nothing, is first): the first 5,000 are read in full. */
const FULL = 5000;
/** From here on the seconds run 10..19; before it, every line is in second 01 (so sampled out past FULL). */
const TURN = 10_000;

function room(i: number): string {
  return (7000000000000000000n + BigInt(i)).toString();
}

function second(i: number): number {
  return i < TURN ? 1 : 10 + (i % 10);
}

function line(i: number): string {
  const s = String(second(i)).padStart(2, "0");
  const ms = String(i % 1000).padStart(3, "0");
  const end = i % 3 === 0 ? "\r" : "";
  return `[2026-08-20 10:00:${s}.${ms} TP0] sending kvcache to d0-tp0 with notif ${room(i)}_kv_0_1_0${end}`;
}

test("past the first 5,000 anchoring events only those of a second ending in 0 give anchors", async () => {
  const dir = scratchDir("kvrewind-anchor-sampling-");
  const path = join(dir, "prefill-0.log");
  const lines = Array.from({ length: LINES }, (_, i) => line(i));
  writeFileSync(path, "[2026-08-20 10:00:00 TP0] Prefill batch, #new-seq: 1, #new-token: 8, #cached-token: 0, token usage: 0.01, #running-req: 0, #queue-req: 0\n" + lines.join("\n") + "\n");
  const rooms = new Set<string>();
  const sniff = sniffSource(path, parseTimeZone("UTC"));
  const source = { sourceId: 0, plainPath: path, displayPath: "prefill-0.log", format: sniff.format!, wrapper: null, dating: null, tzGiven: false, tzOffsetMinutes: 0, bytes: sniff.bytes };
  const [parsed] = await runParse([source], new RunStore(dir), () => {});
  for (const a of parsed!.facts.anchors) {
    const m = /(\d{19})/.exec(a.key);
    if (m) rooms.add(m[1]!);
  }
  const expected = new Set<string>();
  for (let i = 0; i < LINES; i++) if (i < FULL || second(i) % 10 === 0) expected.add(room(i));
  assert.equal(expected.size, FULL + (LINES - TURN) / 10);
  assert.deepEqual([...rooms].sort(), [...expected].sort());
});
