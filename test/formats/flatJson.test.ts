// The fast path for one-line JSON records (ingest/formats/flatJson.ts) against
// the general reader (numerals.ts parseJsonExact): on every JSONL line of the
// fixtures and bundles, and on hand-written lines at the edges of both — the
// lossy-number rule, JSON's number grammar, escapes, nesting, bad JSON.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { readFlatJsonObject } from "../../ingest/formats/flatJson.js";
import { parseJsonExact } from "../../ingest/formats/numerals.js";
import { jsonRecord } from "../../ingest/formats/records.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

function jsonlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return e.name === "node_modules" ? [] : jsonlFiles(p);
    return e.name.endsWith(".jsonl") ? [p] : [];
  });
}

/** The general reader's answer, or the error it throws. */
function general(text: string): { value: unknown } | { error: string } {
  try {
    return { value: parseJsonExact(text) };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

/** Where the fast path reads a line, it reads what the general reader reads, keys in the same order. */
function assertAgrees(text: string, where: string): boolean {
  const fast = readFlatJsonObject(text);
  if (fast === undefined) return false;
  const slow = general(text);
  assert.ok("value" in slow, `${where}: the fast path read a line the general reader rejects (${"error" in slow ? slow.error : ""})`);
  assert.deepStrictEqual(fast, slow.value, where);
  assert.deepStrictEqual(Object.keys(fast), Object.keys(slow.value as object), `${where}: key order`);
  return true;
}

test("every JSONL line of the fixtures and bundles reads the same through the fast path", () => {
  const files = [...jsonlFiles(join(ROOT, "fixtures")), ...jsonlFiles(join(ROOT, "test"))];
  assert.ok(files.length >= 20, `JSONL files found: ${files.length}`);
  let lines = 0;
  let fast = 0;
  for (const file of files) {
    readFileSync(file, "utf8")
      .split("\n")
      .forEach((line, i) => {
        if (line.trim() === "") return;
        lines++;
        if (assertAgrees(line, `${file}:${i + 1}`)) fast++;
      });
  }
  assert.ok(lines > 1000, `lines read: ${lines}`);
  assert.ok(fast / lines > 0.9, `the fast path reads ${fast} of ${lines} lines`);
});

test("numbers: 19-digit rooms and nanosecond stamps stay exact, seconds with six decimals stay numbers", () => {
  const rec = readFlatJsonObject('{"ts": 1787220000.000792, "room": 5737280593427923200, "ns": 1787220000000792123, "tp": 0}');
  assert.deepStrictEqual(rec, { ts: 1787220000.000792, room: "5737280593427923200", ns: "1787220000000792123", tp: 0 });
  const edges = [
    '{"a": 1234567890123456}', // 16-digit integer: lossy
    '{"a": 123456789012345}', // 15 digits: a number
    '{"a": -1234567890123456}',
    '{"a": 1234567890.123456}', // 16 digits with a point: a number
    '{"a": 1234567890.1234567}', // 17: lossy
    '{"a": 1.2345678901234567e5}',
    '{"a": 12345678901234.5e+3}', // a run of 16 with the point, 15 digits: a number
    '{"a": 1e00000000000000001}', // a 17-digit exponent run
    '{"a": 123e0000000000000}', // 17 digits, no run of 16: a number
    '{"a": 0.0000000000000001}',
    '{"a": -0, "b": 0, "c": 1E400, "d": 5e-324}',
    '{"a":[[1024,1040],[2048,2064]],"b":[],"c":[true,false,null,"x"]}',
    '  {"a" : 1 ,  "b":\t"two" }  ',
    '{}',
    '{"a": 1, "a": 2}',
    '{"0": "x", "b": 1, "1": "y"}',
    '{"s": "ünïcødé ✓ 日本", "t": ""}',
  ];
  for (const line of edges) assert.ok(assertAgrees(line, line), `the fast path reads ${line}`);
});

test("lines the fast path leaves to the general reader: escapes, nesting, bad JSON, __proto__", () => {
  const general = [
    '{"s": "a\\"b"}',
    '{"s": "line\\nbreak"}',
    '{"o": {"nested": 1}}',
    '{"a": [[[1]]]}',
    '{"__proto__": {"x": 1}}',
    '{"__proto__": 1}',
    '{"a": 01}',
    '{"a": 1.}',
    '{"a": .5}',
    '{"a": +1}',
    '{"a": 1e}',
    '{"a": NaN}',
    '{"a": tru}',
    '{"a": 1,}',
    '{"a" 1}',
    '{"a": 1} x',
    '{"a": 1',
    '["not", "an", "object"]',
    '{"s": "tab\there"}',
    "",
  ];
  for (const line of general) assert.equal(readFlatJsonObject(line), undefined, line);
});

test("a record the fast path leaves still reads through jsonRecord, and a bad one is reported with its line", () => {
  const issues: { line: number; message: string }[] = [];
  assert.deepStrictEqual(jsonRecord('{"ev": "kv.post", "o": {"room": 12345678901234567890}}', 7, issues), {
    ev: "kv.post",
    o: { room: "12345678901234567890" },
  });
  assert.equal(jsonRecord('{"ev": "kv.post", "room": 1', 8, issues), undefined);
  assert.equal(jsonRecord('{"__proto__": {"polluted": true}}', 9, issues)?.polluted, undefined);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.deepEqual(issues.map((i) => i.line), [8]);
  assert.match(issues[0]!.message, /^not JSON: /);
});
