// Type-checking a hypothesis against the event catalogue: an unknown kind or
// field, a comparison the field's type cannot make, a key one side lacks.
// The text parser reports these at the token's line:column, the JSON form at
// the member's path (docs/hypotheses.md "Errors").

import type { Condition, Key, Property } from "./ast.js";
import { fieldsOf, fieldType, isKnownKind, KIND_NAMES } from "./catalogue.js";

export function kindProblem(kind: string): string | undefined {
  if (isKnownKind(kind)) return undefined;
  const near = closest(kind, KIND_NAMES);
  return `unknown kind '${kind}'${near ? ` (did you mean ${near}?)` : ""}`;
}

export function fieldProblem(kind: string, field: string): string | undefined {
  if (!isKnownKind(kind) || fieldType(kind, field) !== undefined) return undefined;
  const fields = fieldsOf(kind);
  const near = closest(field, fields);
  return `${kind} has no field '${field}'${near ? ` (did you mean ${near}?)` : ""}; its fields: ${fields.join(", ")}`;
}

export function conditionProblem(kind: string, c: Condition): string | undefined {
  const bad = fieldProblem(kind, c.field);
  if (bad) return bad;
  const type = fieldType(kind, c.field);
  if (c.op === "exists") return undefined;
  if (type === "json") return `${c.field} of ${kind} holds structured values: test it with 'exists'`;
  if (c.op === "~") return regexProblem(c.pattern);
  const values = c.op === "in" ? c.values : [c.value];
  if ((c.op === "<" || c.op === "<=" || c.op === ">" || c.op === ">=") && type !== "number" && type !== "pages") return `'${c.op}' compares numbers, and ${c.field} of ${kind} is a ${type}`;
  for (const v of values) {
    if ((type === "number" || type === "pages") && !(typeof v === "number" || (typeof v === "string" && /^-?\d+(\.\d+)?$/.test(v)))) return `${c.field} of ${kind} is a number, not ${JSON.stringify(v)}`;
    if (type === "boolean" && typeof v !== "boolean") return `${c.field} of ${kind} is true or false, not ${JSON.stringify(v)}`;
    if (type === "room" && !/^\d+$/.test(String(v))) return `${c.field} of ${kind} is a room (a decimal number), not ${JSON.stringify(v)}`;
  }
  return undefined;
}

export function keyProblem(subjectKind: string, otherKind: string, key: Key): string | undefined {
  return fieldProblem(subjectKind, key.field) ?? fieldProblem(otherKind, key.other ?? key.field);
}

function regexProblem(pattern: string): string | undefined {
  try {
    new RegExp(pattern);
    return undefined;
  } catch (err) {
    return `not a regular expression: ${(err as Error).message}`;
  }
}

/** Every problem of a property, each with the JSON path of the member at fault. */
export function propertyProblems(p: Property, at = "property"): string[] {
  const out: string[] = [];
  const add = (path: string, problem: string | undefined) => problem && out.push(`${path}: ${problem}`);
  const pattern = (path: string, kind: string, where: readonly Condition[]) => {
    add(`${path}.kind`, kindProblem(kind));
    where.forEach((c, i) => add(`${path}.where[${i}]`, conditionProblem(kind, c)));
  };
  pattern(`${at}.subject`, p.subject.kind, p.subject.where);
  if (p.type === "never") return out;
  if (p.type === "agree") {
    p.fields.forEach((f, i) => add(`${at}.fields[${i}]`, fieldProblem(p.subject.kind, f)));
    p.same.forEach((k, i) => add(`${at}.same[${i}]`, fieldProblem(p.subject.kind, k.field)));
    return out;
  }
  p.clauses.forEach((c, i) => {
    const path = `${at}.clauses[${i}]`;
    if (c.type === "require") return c.conditions.forEach((x, j) => add(`${path}.conditions[${j}]`, conditionProblem(p.subject.kind, x)));
    pattern(`${path}.other`, c.other.kind, c.other.where);
    if (c.since) pattern(`${path}.since`, c.since.kind, c.since.where);
    if (c.since && c.direction !== "before") add(`${path}.since`, "'since the last' goes with 'before'");
    c.same.forEach((k, j) => add(`${path}.same[${j}]`, keyProblem(p.subject.kind, c.other.kind, k)));
  });
  return out;
}

/** The candidate within edit distance 2 of `word`, if one is. */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestD = 3;
  for (const c of candidates) {
    const d = editDistance(word, c);
    if (d < bestD) [best, bestD] = [c, d];
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row.push(Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)));
    prev = row;
  }
  return prev[b.length]!;
}
