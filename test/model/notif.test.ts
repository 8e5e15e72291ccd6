// The in-place notification tag parser against the plain reading of §6
// (docs/protocol.md "Notification tags"): split on "_", then
// field by field. The oracle below is that reading written out; the parser
// must agree with it on every tag, well-formed or not.

import { test } from "node:test";
import assert from "node:assert/strict";
import { parseNotif, type Notif } from "../../analyzer/model/index.js";

const ROOM = "8972542885242963297";

function int(s: string | undefined): number | null {
  return s === undefined || !/^[0-9]+$/.test(s) ? null : Number(s);
}

/** §6 as decode reads it: fields by index after split("_"). */
function bySplit(tag: string): Notif | null {
  const f = tag.split("_");
  if (!/^[0-9]+$/.test(f[0]!) || f.length < 2) return null;
  const base = { room: f[0]!, part: null, parts: null };
  if (f[1] === "kv" || f[1] === "stg") {
    const chunk = int(f[2]);
    if (chunk === null || (f[3] !== "0" && f[3] !== "1")) return null;
    const src = f.length > 4 ? int(f[4]) : 0;
    if (src === null) return null;
    const out: Notif = { ...base, kind: f[1], chunk, isLast: f[3] === "1", src };
    if (f[1] === "kv" && f[5] === "part") {
      out.part = int(f[6]);
      out.parts = int(f[7]);
      if (out.part === null || out.parts === null) return null;
    }
    return out;
  }
  if (f[1] === "state") {
    const src = int(f[2]);
    return src === null ? null : { ...base, kind: "state", chunk: null, isLast: true, src };
  }
  if (f[1] === "aux") {
    if (f.length === 2) return { ...base, kind: "aux", chunk: null, isLast: true, src: 0 };
    const src = int(f[3]);
    if (f[2] !== "nokv" || src === null) return null;
    return { ...base, kind: "aux_nokv", chunk: f.length > 4 ? int(f[4]) : null, isLast: true, src };
  }
  return null;
}

test("tags of every §6 shape, and broken ones, parse as the split reading does", () => {
  const tags = [
    `${ROOM}_kv_0_1_3`,
    `${ROOM}_kv_12_0`,
    `${ROOM}_kv_1_0_1_part_0_2`,
    `${ROOM}_kv_1_0_1_part_0`,
    `${ROOM}_kv_1_0_1_part_x_2`,
    `${ROOM}_kv_1_0_1_extra`,
    `${ROOM}_stg_2_1_0_0_128_64_agent_with_underscores_x`,
    `${ROOM}_stg_2_1_0_part_0_2`,
    `${ROOM}_state_3_0`,
    `${ROOM}_state_3`,
    `${ROOM}_state_`,
    `${ROOM}_aux`,
    `${ROOM}_aux_`,
    `${ROOM}_aux_nokv_1`,
    `${ROOM}_aux_nokv_1_4`,
    `${ROOM}_aux_nokv_1_x`,
    `${ROOM}_aux_kv_1_4`,
    `${ROOM}_kv_00012_1_007`,
    `${ROOM}_kv_123456789012345678901_1_0`,
    `${ROOM}_kv_1_2_0`,
    `${ROOM}_kv__1_0`,
    `${ROOM}_kv_1_1_`,
    `${ROOM}_kvx_1_1_0`,
    `${ROOM}_k_1_1_0`,
    `${ROOM}`,
    `${ROOM}_`,
    `_kv_1_1_0`,
    `12a_kv_1_1_0`,
    "",
    "_",
    "1_kv_1_1_0_part_1_2_3_4_5_6_7",
  ];
  for (const tag of tags) assert.deepEqual(parseNotif(tag), bySplit(tag), tag);
});

test("the event's room string is reused when the tag names the same room", () => {
  const known = String(8972542885242963297n);
  assert.equal(parseNotif(`${ROOM}_kv_0_1_3`, known)!.room, ROOM);
  assert.equal(parseNotif(`${ROOM}_aux`, "8972542885242963298")!.room, ROOM, "another room in the event: the tag's own wins");
  assert.equal(parseNotif(`${ROOM}0_aux`, ROOM)!.room, `${ROOM}0`, "a longer room that starts with the event's");
  assert.equal(parseNotif("_aux", ""), null, "an empty event room does not make an empty tag room valid");
  assert.equal(parseNotif("r1_aux", "r1"), null, "nor does a room that is not decimal");
  for (const tag of [`${ROOM}_kv_0_1_3`, `${ROOM}_aux_nokv_1`, `${ROOM}_state_2`, `${ROOM}_kv_x_1_3`]) {
    assert.deepEqual(parseNotif(tag, ROOM), parseNotif(tag), `${tag}: the same with and without the event's room`);
  }
});
