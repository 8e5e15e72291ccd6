// `kvrewind replay <incident.db> [--at <seq|ISO time>] [--room R] [--page N [--layer L]] [--json] [--profile ...]`
// With --at: the model state after that event (or the last event at or before
// that time). Without: a full replay's violations and coverage.

import { existsSync } from "node:fs";
import type { CommandModule } from "yargs";
import { z } from "zod";
import { openIncident, type IncidentDb } from "../../store/db.js";
import { eventRef } from "../../analyzer/replay/eventRefs.js";
import { atNotes, unknownRoom } from "../../analyzer/replay/atNotes.js";
import { replayIncident, type ReplaySummary } from "../../analyzer/replay/replay.js";
import type { Coverage } from "../../analyzer/rules/finding.js";
import { analyze } from "../../analyzer/rules/index.js";
import { replayEvidenceOf } from "../../analyzer/rules/replayEvidence.js";
import { stateJson } from "../../analyzer/replay/stateJson.js";
import { provenance, seqAt, stateAt, timeline, type At } from "../../analyzer/replay/timeTravel.js";
import { isoUs, stateText, summaryText } from "./replayText.js";
import { pageText } from "./pageText.js";
import { pageViewAt } from "../../analyzer/pages/pageView.js";
import { Evidence } from "../../analyzer/rules/evidence.js";

const ISO = /^(\d{4})-(\d\d)-(\d\d)[T ](\d\d):(\d\d):(\d\d)(?:\.(\d{1,6}))?(Z|[+-]\d\d:?\d\d)?$/;

/** `--at`: a seq (digits) or an ISO-8601 time, read as UTC when it names no zone (DESIGN.md "Canonical store"). */
export function parseAt(text: string): At {
  if (/^\d+$/.test(text)) return { seq: Number(text) };
  const m = ISO.exec(text.trim());
  if (!m) throw new Error(`--at: "${text}" is neither a seq nor an ISO time like 2026-08-20T10:15:32.123Z`);
  const [, y, mo, d, h, mi, s, frac, zone] = m;
  const ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  if (Number.isNaN(ms) || new Date(ms).getUTCDate() !== Number(d)) throw new Error(`--at: "${text}" is not a valid date`);
  let offsetMin = 0;
  if (zone && zone !== "Z") {
    const z2 = zone.replace(":", "");
    offsetMin = (z2[0] === "-" ? -1 : 1) * (Number(z2.slice(1, 3)) * 60 + Number(z2.slice(3, 5)));
  }
  return { tsUs: (ms - offsetMin * 60_000) * 1000 + Number((frac ?? "").padEnd(6, "0")) };
}

const Args = z.object({
  db: z.string().min(1),
  at: z.string().min(1).optional(),
  room: z.string().regex(/^\d+$/, "a room is a decimal bootstrap_room").optional(),
  page: z.coerce.number().int().nonnegative().optional(),
  layer: z.coerce.number().int().nonnegative().optional(),
  json: z.boolean(),
  profile: z.string().min(1).optional(),
});
type Args = z.infer<typeof Args>;

/** Read-only: what the derive step stored is read, anything missing is computed in memory. */
function open(path: string): IncidentDb {
  if (!existsSync(path)) throw new Error(`${path}: no such incident database`);
  return openIncident(path, { readonly: true });
}

function progress(enabled: boolean): ((phase: string, done: number, total: number) => void) | undefined {
  if (!enabled) return undefined;
  return (phase, done, total) => {
    const of = Number.isFinite(total) ? `/${total}` : "";
    process.stderr.write(`\r${phase}: ${done}${of} events`);
  };
}

/** `--page`: the page's dumped bytes at the cursor (analyzer/pages/pageView.ts). */
function pageAt(db: IncidentDb, args: Args & { at: string; page: number }): string {
  const at = parseAt(args.at);
  const seq = seqAt(db, at);
  const view = seq === null ? undefined : pageViewAt(new Evidence(db), { seq, page: args.page, ...(args.room !== undefined && { room: args.room }), ...(args.layer !== undefined && { layer: args.layer }) });
  if (!view) throw new Error(`no dump of page ${args.page}${args.room !== undefined ? ` of room ${args.room}` : ""}${args.layer !== undefined ? ` layer ${args.layer}` : ""} at or before ${args.at}`);
  const atRef = seq === null ? null : eventRef(db, seq);
  if (args.json) return JSON.stringify({ at: atRef ? { ...atRef, ts: isoUs(atRef.tsUs) } : null, page: view }, null, 2) + "\n";
  return pageText(view);
}

function replayAt(db: IncidentDb, args: Args & { at: string }): string {
  const at = parseAt(args.at);
  const unknown = args.room === undefined ? undefined : unknownRoom(db, args.room);
  if (unknown) throw new Error(unknown);
  const line = timeline(db, args.profile);
  const view = stateAt(db, at, { room: args.room, profileFlag: args.profile });
  const seq = seqAt(db, at);
  const atRef = seq === null ? null : eventRef(db, seq);
  const refs = provenance(db, view);
  const notes = atNotes(db, at, seq, view, args.room);
  if (args.json) {
    const out = {
      at: atRef ? { ...atRef, ts: isoUs(atRef.tsUs) } : null,
      notes,
      profile: line.choice,
      state: stateJson(view, refs),
    };
    return JSON.stringify(out, null, 2) + "\n";
  }
  return stateText(view, atRef, refs, line.choice, notes);
}

/**
 * The rules' coverage for this replay: the same verdicts and numbers
 * `analyze` prints (the model's raw check counters stay in the JSON as
 * `modelChecks`).
 */
function ruleCoverage(db: IncidentDb, summary: ReplaySummary): Coverage["rules"] {
  return analyze(db, { replay: replayEvidenceOf(summary) }).coverage.rules;
}

function summaryJson(s: ReplaySummary, rules: Coverage["rules"]): string {
  const { coverage, ...rest } = s;
  return JSON.stringify({ ...rest, coverage: rules, modelChecks: coverage }, null, 2) + "\n";
}

export const replayCommand: CommandModule<object, Args> = {
  command: "replay <db>",
  describe: "replay an incident against the reference model; --at shows the state at a seq or time",
  builder: (y) =>
    y
      .positional("db", { type: "string", describe: "the incident database", demandOption: true })
      .option("at", { type: "string", describe: "a seq, or an ISO time (UTC unless it names a zone)" })
      .option("room", { type: "string", describe: "with --at: only this bootstrap_room" })
      .option("page", { type: "number", describe: "with --at: the dumped bytes of this page (its index in the dumping side's pool)" })
      .option("layer", { type: "number", describe: "with --page: the layer" })
      .option("json", { type: "boolean", default: false, describe: "print JSON" })
      .option("profile", {
        type: "string",
        describe: "override the profile, e.g. backend=nixl,version=0.5.14,index_k_dtype=bf16,hicache=on",
      }) as never,
  // Async, so that a thrown error reaches yargs' fail handler (exit code 2).
  handler: async (argv) => {
    const parsed = Args.safeParse(argv);
    if (!parsed.success) throw new Error(parsed.error.issues.map((i) => `--${i.path.join(".")}: ${i.message}`).join("; "));
    const args = parsed.data;
    const db = open(args.db);
    try {
      if (args.page !== undefined) {
        if (args.at === undefined) throw new Error("--page needs --at: the page's bytes are shown at a point of the incident");
        process.stdout.write(pageAt(db, { ...args, at: args.at, page: args.page }));
        return;
      }
      if (args.at !== undefined) {
        process.stdout.write(replayAt(db, { ...args, at: args.at }));
        return;
      }
      const tty = process.stderr.isTTY === true && !args.json;
      const summary = replayIncident(db, { profileFlag: args.profile, onProgress: progress(tty) });
      if (tty) {
        process.stderr.write(`\r${summary.events} events in ${summary.timing.replayMs.toFixed(0)} ms: ${Math.round(summary.timing.eventsPerSecond)} events/s\n`);
      }
      const rules = ruleCoverage(db, summary);
      process.stdout.write(args.json ? summaryJson(summary, rules) : summaryText(summary, rules));
    } finally {
      db.close();
    }
  },
};
