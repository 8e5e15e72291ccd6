// A query's rows as people read them: an aligned table, CSV (RFC 4180) or
// JSON. BigInt values print as their exact digits everywhere (lossless-json
// writes them as JSON numbers); BLOBs print as hex.

import { stringify } from "lossless-json";
import type { QueryResult } from "./userQuery.js";

function cell(v: unknown): string {
  if (v === null || v === undefined) return "NULL";
  if (Buffer.isBuffer(v)) return `x'${v.toString("hex")}'`;
  return String(v);
}

/** Columns padded to their widest value; numbers right-aligned. */
export function formatTable(r: QueryResult): string {
  const cells = r.rows.map((row) => row.map(cell));
  const widths = r.columns.map((c, i) => Math.max(c.length, ...cells.map((row) => row[i]!.length)));
  const numeric = r.columns.map((_, i) => r.rows.length > 0 && r.rows.every((row) => row[i] === null || typeof row[i] === "bigint" || typeof row[i] === "number"));
  const line = (values: string[]): string =>
    values.map((v, i) => (numeric[i] ? v.padStart(widths[i]!) : v.padEnd(widths[i]!))).join("  ").trimEnd();
  const out = [line(r.columns), widths.map((w) => "-".repeat(w)).join("  "), ...cells.map(line)];
  out.push(`(${r.rows.length} row${r.rows.length === 1 ? "" : "s"}${r.truncated ? ", more not shown: --max-rows" : ""})`);
  return `${out.join("\n")}\n`;
}

function csvField(v: unknown): string {
  if (v === null || v === undefined) return "";
  const s = Buffer.isBuffer(v) ? v.toString("hex") : String(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function formatCsv(r: QueryResult): string {
  return [r.columns, ...r.rows].map((row) => row.map(csvField).join(",")).join("\r\n") + "\r\n";
}

/** `{columns, rows, truncated}`, each row an array in column order. */
export function formatJson(r: QueryResult): string {
  const rows = r.rows.map((row) => row.map((v) => (Buffer.isBuffer(v) ? v.toString("hex") : v)));
  return `${stringify({ columns: r.columns, rows, truncated: r.truncated }, null, 2)}\n`;
}
