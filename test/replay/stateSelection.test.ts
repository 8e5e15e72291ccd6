// The part of a state view a reader asked for: rooms by text, by a finding's
// set and not at Success, the focus room first, a page of rooms and pages,
// and the totals the page came from.

import { test } from "node:test";
import assert from "node:assert/strict";
import { createModel, defaultProfile, type ModelStateView, type PageView, type RoomView } from "../../analyzer/model/index.js";
import { KVPoll, type KVPollValue } from "../../domain/vocabulary.js";
import { selectState } from "../../analyzer/replay/stateSelection.js";

function room(id: string, prefill: KVPollValue | null, decode: KVPollValue | null): RoomView {
  return {
    room: id,
    prefill: { state: prefill, ranks: prefill === null ? [] : ["prefill/tp0"], chunksPosted: 1, chunksDone: 1, queue: null, changedAt: prefill === null ? null : 10 },
    decode: { state: decode, ranks: decode === null ? [] : ["decode/tp0"], chunksNotified: 1, auxReceived: true, pages: [[0, 4]], changedAt: decode === null ? null : 11 },
  };
}

function page(n: number, owner: string | null, writer: string | null): PageView {
  return {
    rank: "decode/tp0",
    buffer: "kv",
    layer: -1,
    page: n,
    ownerRoom: owner,
    lastWriter: writer === null ? null : { room: writer, chunk: 0, epoch: 1, seq: 5 },
    landed: true,
    changedAt: 5,
  };
}

const A = "5830149913321004417";
const B = "5830149913321004418";
const C = "8449771539072680511";
const D = "8449771539072680512";

function state(): ModelStateView {
  const base = createModel(defaultProfile({ backend: "nixl", version: "0.5.20" })).view();
  return {
    ...base,
    rooms: [room(A, KVPoll.Success, KVPoll.Success), room(B, KVPoll.Transferring, KVPoll.WaitingForInput), room(C, KVPoll.Success, null), room(D, KVPoll.Failed, KVPoll.Failed)],
    pages: [page(0, A, null), page(1, B, A), page(2, null, C), page(3, D, D)],
  };
}

const ids = (v: ModelStateView): string[] => v.rooms.map((r) => r.room);

test("with nothing asked, every room and page, in the model's order", () => {
  const { view, totals } = selectState(state(), {});
  assert.deepEqual(ids(view), [A, B, C, D]);
  assert.equal(view.pages.length, 4);
  assert.deepEqual(totals, { rooms: 4, roomsMatched: 4, pages: 4, pagesMatched: 4 });
});

test("rooms not at Success: a side unknown or anything but Success on either side", () => {
  assert.deepEqual(ids(selectState(state(), { notSuccess: true }).view), [B, C, D]);
});

test("text, a finding's rooms and not-Success together; the totals count the whole state", () => {
  const { view, totals } = selectState(state(), { text: "84497715", among: new Set([A, C, D]), notSuccess: true });
  assert.deepEqual(ids(view), [C, D]);
  assert.deepEqual(totals, { rooms: 4, roomsMatched: 2, pages: 4, pagesMatched: 4 });
});

test("the focus room comes first and only its pages (owned or last written) are listed", () => {
  const { view, totals } = selectState(state(), { focus: D });
  assert.deepEqual(ids(view), [D, A, B, C]);
  assert.deepEqual(view.pages.map((p) => p.page), [3]);
  assert.equal(totals.pagesMatched, 1);
  assert.deepEqual(selectState(state(), { focus: A }).view.pages.map((p) => p.page), [0, 1], "A owns page 0 and last wrote page 1");
  assert.deepEqual(ids(selectState(state(), { focus: A, notSuccess: true }).view), [B, C, D], "a focus the filter leaves out is not added back");
});

test("a limit keeps the first rooms and pages; the totals say how many matched", () => {
  const { view, totals } = selectState(state(), { limit: 2, focus: C });
  assert.deepEqual(ids(view), [C, A]);
  assert.deepEqual(totals, { rooms: 4, roomsMatched: 4, pages: 4, pagesMatched: 1 });
  const unfocused = selectState(state(), { limit: 3 });
  assert.equal(unfocused.view.pages.length, 3);
  assert.equal(unfocused.totals.pagesMatched, 4);
});
