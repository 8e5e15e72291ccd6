// Small incidents written by hand for the hypothesis tests: probe records,
// checksum dumps and log lines in files of a scratch bundle, ingested into a
// real incident database, and the named hypotheses checked against it.

import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { checkHypotheses } from "../../analyzer/hypotheses/run.js";
import { libraryHypothesis } from "../../analyzer/hypotheses/library.js";
import type { HypothesisVerdict } from "../../analyzer/hypotheses/verdict.js";
import type { Hypothesis } from "../../analyzer/hypotheses/ast.js";
import { ingest } from "../../ingest/pipeline.js";
import { openIncident } from "../../store/db.js";
import { scratchDir } from "../scratchDir.js";

/** The epoch second the records count from: 2026-06-11T14:00:00Z. */
const T0 = 1_781_186_400;

/** A decode-side probe record of rank d0/tp`tp` at T0 + `s` seconds. */
export function decode(s: number, ev: string, fields: Record<string, unknown> = {}, tp = 0): string {
  return probe("d0", "decode", tp, s, ev, fields);
}

export function prefill(s: number, ev: string, fields: Record<string, unknown> = {}, tp = 0): string {
  return probe("p0", "prefill", tp, s, ev, fields);
}

function probe(host: string, role: string, tp: number, s: number, ev: string, fields: Record<string, unknown>): string {
  return jsonLine({ ts: T0 + s, host, role, dp: 0, pp: 0, tp, ev, ...fields });
}

/** Rooms are 19-digit integers in probe and dump records, beyond a double: written as bare numerals. */
function jsonLine(record: Record<string, unknown>): string {
  return JSON.stringify(record).replace(/"room":"(\d+)"/g, '"room":$1');
}

/** A checksum dump record (DESIGN.md "Checksum dumps"). */
export function checksum(s: number, side: string, room: string, pos: number, hash: string, tp = 0): string {
  const [host, role] = side === "prefill_store" ? ["p0", "prefill"] : ["d0", "decode"];
  return jsonLine({ ts: T0 + s, host, role, tp, side, room, buffer: "index_k", layer: 0, page: pos, pos, algo: "xxh64", hash });
}

/** Files (path → lines) ingested into a new incident; the hypotheses checked against it. */
export async function checkFiles(files: Record<string, string[]>, hypotheses: Hypothesis[]): Promise<HypothesisVerdict[]> {
  const dir = scratchDir("kvrewind-hyp-");
  const bundle = join(dir, "bundle");
  for (const [path, lines] of Object.entries(files)) {
    mkdirSync(dirname(join(bundle, path)), { recursive: true });
    writeFileSync(join(bundle, path), `${lines.join("\n")}\n`);
  }
  const db = join(dir, "incident.db");
  await ingest({ db, paths: [bundle] });
  const handle = openIncident(db, { readonly: true });
  try {
    return checkHypotheses(handle, hypotheses).verdicts;
  } finally {
    handle.close();
  }
}

export function named(name: string): Hypothesis {
  const h = libraryHypothesis(name);
  if (!h) throw new Error(`no library hypothesis ${name}`);
  return h;
}

/** The witness lines of a verdict as "file:line" pairs (the partner "-" when missing). */
export function witnessPlaces(v: HypothesisVerdict): string[] {
  return v.witnesses.map((w) => `${tail(w.subject.source)}:${w.subject.line} ${w.other ? `${tail(w.other.source)}:${w.other.line}` : "-"}`);
}

function tail(path: string): string {
  return path.split("/").slice(-2).join("/");
}

export const ROOM_A = "7217901993355608446";
export const ROOM_B = "4827602891845930534";
