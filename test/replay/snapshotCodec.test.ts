// The snapshot byte form gives back exactly the tree it was given: numbers of
// every kind (int32 and not, -0, NaN, µs times, 19-digit rooms as strings),
// strings, nulls, nested arrays, maps and plain objects in their order, and
// float64 columns (the model's rooms) as they were, bit for bit, though the
// float column is stored as differences.

import assert from "node:assert/strict";
import { test } from "node:test";
import { decodeSnapshot, encodeSnapshot } from "../../analyzer/replay/snapshotCodec.js";

test("a snapshot tree comes back value for value", () => {
  const tree = [
    2,
    [0, 1, -1, 2147483647, -2147483648, 2147483648, 1.5, -0, NaN, Infinity, 1_755_684_000_123_456],
    ["7214710544655630736", "", "dp0/tp3", "ünïcødé ✓", null, true, false, undefined],
    [[], [[1, [2, [3]]]], new Map<unknown, unknown>([[3, "x"], ["y", [4, null]]])],
    { rank: 7, room: "4239021993866492297", nested: { a: [1, 2] } },
    12345678901234567890n,
    [new Float64Array([3, 1.25, NaN, -0, 1_755_684_000_123_456]), 0.5, new Float64Array(0), new Float64Array(3000).fill(7)],
  ];
  const back = decodeSnapshot(encodeSnapshot(tree)) as unknown[];
  assert.deepEqual(back, tree);
  assert.ok(Object.is((back[1] as number[])[7], -0), "-0 stays -0");
  const columns = back[6] as [Float64Array, number, Float64Array, Float64Array];
  assert.ok(columns[0] instanceof Float64Array && Object.is(columns[0][3], -0), "a column stays a Float64Array, -0 in it too");
  assert.equal(columns[1], 0.5, "a float after a column is read from its own place");
  assert.deepEqual([...(back[3] as unknown[])[2] as Map<unknown, unknown>].map(([k]) => k), [3, "y"], "map order kept");
});

test("a float column comes back bit for bit through its differences, at every value the subtraction cannot undo", () => {
  const awkward = [0.1, 0.2, 0.30000000000000004, 5e-324, -5e-324, 1e308, -1e308, 1.7976931348623157e308, -0, 0, -0, NaN, 3, Infinity, 4, -Infinity, -Infinity, NaN, NaN, 2 ** 53, 2 ** 53 + 2, 1e-300, 1 / 3];
  let seed = 7;
  const random = Array.from({ length: 5000 }, () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    // Times in µs climbing by a few ms, and doubles of every magnitude.
    return seed % 3 === 0 ? 1_755_684_000_000_000 + seed : (seed / 2 ** 31 - 0.5) * 10 ** ((seed % 40) - 20);
  });
  const column = new Float64Array([...awkward, ...random, ...awkward.reverse()]);
  const [back, scalar] = decodeSnapshot(encodeSnapshot([column, 2.5])) as [Float64Array, number];
  const bits = (a: Float64Array) => [...new BigUint64Array(a.buffer, a.byteOffset, a.length)].map((b, i) => (Number.isNaN(a[i]) ? "NaN" : b.toString(16)));
  assert.deepEqual(bits(back), bits(column));
  assert.equal(scalar, 2.5);
});

test("consecutive snapshots do not share state through the reused columns", () => {
  const a = encodeSnapshot([["room-a", 1.25], 7]);
  const b = encodeSnapshot(["room-b"]);
  assert.deepEqual(decodeSnapshot(a), [["room-a", 1.25], 7]);
  assert.deepEqual(decodeSnapshot(b), ["room-b"]);
});

test("a value the model never snapshots is refused, not silently dropped", () => {
  assert.throws(() => encodeSnapshot([new Set([1])]), /cannot encode a \[object Set\]/);
});
