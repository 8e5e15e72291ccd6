// A hypothesis's syntax tree written back as text (docs/hypotheses.md
// "Syntax"): how the ledger and `check` show a property whatever form it was
// given in. Parsing the printed text gives the same tree.

import type { Clause, Condition, Distance, Key, Literal, Pattern, Property } from "./ast.js";

export function formatProperty(p: Property): string {
  if (p.type === "never") return `no ${formatPattern(p.subject)}`;
  if (p.type === "agree") return `all ranks agree on ${p.fields.join(", ")} for ${formatPattern(p.subject)} same ${formatKeys(p.same)}`;
  return `every ${formatPattern(p.subject)} ${p.clauses.map(formatClause).join(" and ")}`;
}

export function formatClause(c: Clause): string {
  if (c.type === "require") return `requires ${c.conditions.map(conditionText).join(" and ")}`;
  const within = c.within ? ` within ${formatDistance(c.within)}` : "";
  const same = c.same.length ? ` same ${formatKeys(c.same)}` : "";
  const since = c.since ? ` since the last ${formatPattern(c.since)}` : "";
  return `has ${c.exists ? "" : "no "}${formatPattern(c.other)} ${c.direction}${within}${since}${same}`;
}

export function formatPattern(p: Pattern): string {
  return p.where.length ? `${p.kind} where ${p.where.map(conditionText).join(" and ")}` : p.kind;
}

export function conditionText(c: Condition): string {
  if (c.op === "exists") return `${c.field} exists`;
  if (c.op === "in") return `${c.field} in (${c.values.map(literal).join(", ")})`;
  if (c.op === "~") return `${c.field} ~ ${JSON.stringify(c.pattern)}`;
  return `${c.field} ${c.op} ${literal(c.value)}`;
}

function literal(v: Literal): string {
  return typeof v === "string" && !/^[A-Za-z_0-9][A-Za-z0-9_.\-/:]*$/.test(v) ? JSON.stringify(v) : String(v);
}

function formatKeys(keys: readonly Key[]): string {
  return keys.map((k) => (k.other ? `${k.field} = ${k.other}` : k.field)).join(", ");
}

function formatDistance(d: Distance): string {
  if ("events" in d) return `${d.events} events`;
  return d.us % 1_000_000 === 0 ? `${d.us / 1_000_000}s` : d.us % 1000 === 0 ? `${d.us / 1000}ms` : `${d.us}us`;
}
