// The text form: what it parses into, that printing gives it back, and that
// mistakes are reported at their line:column with what was expected; the
// JSON form of the same tree, and its errors by member path.

import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { HypothesisSyntaxError, parseHypothesis } from "../../analyzer/hypotheses/parser.js";
import { formatProperty } from "../../analyzer/hypotheses/printer.js";
import { loadHypothesisFile, loadLibrary } from "../../analyzer/hypotheses/library.js";
import { scratchDir } from "../scratchDir.js";

function errorAt(text: string): { line: number; column: number; detail: string } {
  try {
    parseHypothesis(text);
  } catch (err) {
    assert.ok(err instanceof HypothesisSyntaxError, String(err));
    return { line: err.line, column: err.column, detail: err.detail };
  }
  assert.fail(`parsed: ${text}`);
}

test("the issue's sentence parses as written: a read after the room's last notification", () => {
  const h = parseHypothesis("every index_k kernel.read on decode comes after the room's last kv.notify");
  assert.deepEqual(h.property, {
    type: "every",
    subject: { kind: "kernel.read", where: [{ field: "buffer", op: "=", value: "index_k" }, { field: "side", op: "=", value: "decode" }] },
    clauses: [
      { type: "order", exists: true, other: { kind: "kv.notify", where: [] }, direction: "before", same: [{ field: "room" }] },
      { type: "order", exists: false, other: { kind: "kv.notify", where: [] }, direction: "after", same: [{ field: "room" }] },
    ],
  });
});

test("conditions, distances, keys with a partner's own field name, and the leading comment as the statement", () => {
  const h = parseHypothesis(
    '# Reads wait for their layer.\nevery kernel.read where consumer >= 0 and layer in (0, 30) and path ~ "^rag"\n  has hicache.layer before within 250ms since the last hicache.load same rank, layer, consumer = slot\n  and has no kv.free after within 10 events same room',
  );
  assert.equal(h.statement, "Reads wait for their layer.");
  assert.equal(h.property.type, "every");
  if (h.property.type !== "every") return;
  assert.deepEqual(h.property.subject.where, [
    { field: "consumer", op: ">=", value: 0 },
    { field: "layer", op: "in", values: [0, 30] },
    { field: "path", op: "~", pattern: "^rag" },
  ]);
  const [gate, free] = h.property.clauses;
  assert.deepEqual(gate, { type: "order", exists: true, other: { kind: "hicache.layer", where: [] }, direction: "before", within: { us: 250_000 }, since: { kind: "hicache.load", where: [] }, same: [{ field: "rank" }, { field: "layer" }, { field: "consumer", other: "slot" }] });
  assert.deepEqual(free, { type: "order", exists: false, other: { kind: "kv.free", where: [] }, direction: "after", within: { events: 10 }, same: [{ field: "room" }] });
});

test("a 19-digit room stays exact in a condition", () => {
  const h = parseHypothesis("every kernel.read where room = 8972542885242963296 has kv.notify before same room");
  assert.equal(h.property.type === "every" && h.property.subject.where[0]?.op === "=" && h.property.subject.where[0].value, "8972542885242963296");
});

test("every library hypothesis prints as text that parses to the same tree", () => {
  for (const h of loadLibrary()) assert.deepEqual(parseHypothesis(formatProperty(h.property)).property, h.property, h.name);
});

test("an unknown kind or field is an error at its line and column, with the nearest name", () => {
  assert.deepEqual(errorAt("every kernel.reed has kv.notify before same room"), { line: 1, column: 7, detail: "unknown kind 'kernel.reed' (did you mean kernel.read?)" });
  const field = errorAt("every kernel.read\n  where bufer = index_k has kv.notify before same room");
  assert.deepEqual([field.line, field.column], [2, 9]);
  assert.match(field.detail, /^kernel\.read has no field 'bufer' \(did you mean buffer\?\)/);
  const key = errorAt("every kernel.read has hicache.layer before same room");
  assert.deepEqual([key.line, key.column], [1, 49]);
  assert.match(key.detail, /hicache\.layer has no field 'room'/);
});

test("a value of the wrong type, a bad distance and a missing clause are errors at their place", () => {
  assert.match(errorAt("every kernel.read where layer = top has kv.notify before").detail, /layer of kernel\.read is a number, not "top"/);
  assert.deepEqual(errorAt("every kernel.read has kv.notify before within 5 parsecs"), { line: 1, column: 47, detail: "unknown distance unit 'parsecs' (us, ms, s, min or events)" });
  assert.deepEqual(errorAt("every kernel.read"), { line: 1, column: 18, detail: "expected a clause (has, has no, comes after, comes before, requires), found 'the end'" });
  assert.deepEqual(errorAt('every kernel.read where path ~ "(" has kv.notify before').line, 1);
});

test("the JSON form is the same tree; its errors name the file and the member", () => {
  const dir = scratchDir("kvrewind-hyp-json-");
  const good = join(dir, "gate.json");
  const tree = parseHypothesis("every index_k kernel.read on decode comes after the room's last kv.notify").property;
  writeFileSync(good, JSON.stringify({ statement: "reads follow notifications", property: tree }));
  assert.deepEqual(loadHypothesisFile(good), { name: "gate", statement: "reads follow notifications", property: tree });
  const bad = join(dir, "bad.json");
  writeFileSync(bad, JSON.stringify({ property: { ...tree, subject: { kind: "kernel.read", where: [{ field: "bufer", op: "=", value: "index_k" }] } } }));
  assert.throws(() => loadHypothesisFile(bad), (err: Error) => err.message.startsWith(`${bad}: property.subject.where[0]: kernel.read has no field 'bufer'`));
  const text = join(dir, "typo.hyp");
  writeFileSync(text, "# a typo\nevery kernel.read has kv.notfy before same room\n");
  assert.throws(() => loadHypothesisFile(text), { message: `${text}:2:23: unknown kind 'kv.notfy' (did you mean kv.notify?)` });
});
