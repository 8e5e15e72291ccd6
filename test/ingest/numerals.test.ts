import { test } from "node:test";
import assert from "node:assert/strict";
import { epochUsFromNumeral, parseJsonExact, usFromNs } from "../../ingest/formats/numerals.js";

test("timestamps in every unit the probe may write, to exact microseconds", () => {
  assert.equal(epochUsFromNumeral("1764421512.123456"), 1764421512123456);
  assert.equal(epochUsFromNumeral("1764421512.1"), 1764421512100000);
  assert.equal(epochUsFromNumeral("1764421512"), 1764421512000000);
  assert.equal(epochUsFromNumeral("1764421512123"), 1764421512123000);
  assert.equal(epochUsFromNumeral("1764421512123456"), 1764421512123456);
  assert.equal(epochUsFromNumeral("1764421512123456789"), 1764421512123456);
  assert.equal(epochUsFromNumeral("1.764421512123456e9"), 1764421512123456);
  assert.equal(epochUsFromNumeral("1764421512.9999999"), 1764421512999999);
  assert.equal(epochUsFromNumeral("soon"), undefined);
  assert.equal(epochUsFromNumeral(""), undefined);
  assert.equal(usFromNs("1724779239975811724"), 1724779239975811);
  assert.equal(usFromNs(null), undefined);
});

test("long numbers outside strings come back as exact strings; strings are untouched", () => {
  assert.deepEqual(parseJsonExact('{"room": 8972542885242963296, "small": 42, "f": 0.5}'), {
    room: "8972542885242963296",
    small: 42,
    f: 0.5,
  });
  assert.deepEqual(parseJsonExact('{"a": "x\\" 1234567890123456789 \\\\", "b": [1234567890123456789, -12345678901234567]}'), {
    a: 'x" 1234567890123456789 \\',
    b: ["1234567890123456789", "-12345678901234567"],
  });
  // Six decimals of seconds (16 digits) survive a double; 17 digits do not, so they stay text.
  assert.deepEqual(parseJsonExact('{"ts": 1764421512.123456}'), { ts: 1764421512.123456 });
  assert.deepEqual(parseJsonExact('{"ts": 1764421512.1234567}'), { ts: "1764421512.1234567" });
  assert.throws(() => parseJsonExact('{"room": 8972542885242963296'), SyntaxError);
});
