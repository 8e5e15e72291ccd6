// The analyzer's output contract (DESIGN.md "Findings — the JSON contract"):
// the types the rules and the suspect ranking produce, and the zod schema that
// `kvrewind analyze --json` output is validated against. Rooms are decimal
// strings, times ISO-8601 UTC.

import { z } from "zod";
import { CAUSE_IDS, RULE_IDS, SEVERITIES, VERDICTS } from "../../domain/vocabulary.js";


const roomString = z.string().regex(/^\d+$/, "a room is a decimal string");

export const witnessLineSchema = z.object({
  seq: z.number().int().nonnegative(),
  source: z.string(),
  line: z.number().int().positive(),
  text: z.string(),
  /** The line carries no time of its own: its place in time was interpolated (ingest's ts_inferred). */
  tsInferred: z.literal(true).optional(),
  /** The line's time is unknown (a file with no dated line): its place among the others is no time. */
  timeless: z.literal(true).optional(),
});
export type WitnessLine = z.infer<typeof witnessLineSchema>;

export const findingSchema = z.object({
  id: z.string().regex(/^F\d+$/),
  rule: z.enum(RULE_IDS),
  severity: z.enum(SEVERITIES),
  verdict: z.enum(VERDICTS),
  title: z.string().min(1),
  room: roomString.optional(),
  ranks: z.array(z.string()),
  ts: z.iso.datetime().optional(),
  witness: z.array(witnessLineSchema),
  explanation: z.string().min(1),
  falsify: z.string(),
  /** How many items (rooms, pages, collectives, ...) a consistent or violated verdict rests on. */
  checked: z.number().int().nonnegative().optional(),
  /** For an undetermined verdict: the evidence that was missing. */
  missing: z.array(z.string()).optional(),
  /**
   * A grouped finding (one cause and mechanism, many rooms): every room, the
   * first being `room`. Absent on a finding about one room or none.
   */
  rooms: z.array(roomString).optional(),
  /** Instances the finding groups: its rooms when it names rooms, else its records. */
  count: z.number().int().positive().optional(),
  /** What the verdict rests on that the evidence does not show: defaulted settings, steps the model had to assume. */
  assumptions: z.array(z.string()).optional(),
});
export type Finding = z.infer<typeof findingSchema>;

export const suspectSchema = z.object({
  rank: z.number().int().positive(),
  cause: z.enum(CAUSE_IDS),
  confidence: z.number().min(0).max(1),
  findings: z.array(z.string().regex(/^F\d+$/)),
  summary: z.string().min(1),
  falsify: z.string().min(1),
});
export type Suspect = z.infer<typeof suspectSchema>;

export const GAP_KINDS = [
  "missing-role",
  "missing-ranks",
  "skipped-source",
  "parse-errors",
  "truncated-source",
  "time-gap",
  "clock-offset",
  "causal-inversion",
] as const;
export type GapKind = (typeof GAP_KINDS)[number];

export const coverageGapSchema = z.object({
  kind: z.enum(GAP_KINDS),
  detail: z.string(),
  /** Exactly the rules this gap makes `undetermined`: it removed every record of a kind they need. */
  blinds: z.array(z.enum(RULE_IDS)).optional(),
  /** Rules whose verdicts stand on evidence this gap leaves incomplete or unordered; they keep their verdicts. */
  weakens: z.array(z.enum(RULE_IDS)).optional(),
  /** For a silence: the failure that explains it (a crash of that rank or its server). */
  explainedBy: z.string().optional(),
  source: z.string().optional(),
  ranks: z.array(z.string()).optional(),
  from: z.iso.datetime().optional(),
  to: z.iso.datetime().optional(),
});
export type CoverageGap = z.infer<typeof coverageGapSchema>;

export const coverageSchema = z.object({
  sources: z.number().int().nonnegative(),
  events: z.number().int().nonnegative(),
  ranks: z.array(z.string()),
  gaps: z.array(coverageGapSchema),
  /** Per rule: its verdict and, when undetermined, what it lacked. */
  rules: z.array(
    z.object({
      rule: z.enum(RULE_IDS),
      verdict: z.enum(VERDICTS),
      checked: z.number().int().nonnegative(),
      missing: z.array(z.string()),
      /** Settings the verdict rests on that the incident does not state (defaults, rules derived from defaults). */
      assumed: z.array(z.string()).optional(),
    }),
  ),
});
export type Coverage = z.infer<typeof coverageSchema>;

export const incidentSchema = z.object({
  name: z.string(),
  start: z.iso.datetime().optional(),
  end: z.iso.datetime().optional(),
  hosts: z.array(z.string()),
  /** Settings the incident's own records state (probe `config`, log lines), merged per role. */
  config: z.record(z.string(), z.unknown()),
  /** The model profile the replay ran with, when a replay ran. */
  profile: z.record(z.string(), z.unknown()).optional(),
  /** Profile settings no record, line or flag states: the value the analysis assumed, and why. */
  assumed: z.array(z.object({ setting: z.string(), value: z.unknown(), origin: z.enum(["default", "derived"]), why: z.string() })).optional(),
});
export type Incident = z.infer<typeof incidentSchema>;

export const analysisReportSchema = z.object({
  incident: incidentSchema,
  coverage: coverageSchema,
  findings: z.array(findingSchema),
  suspects: z.array(suspectSchema),
});
export type AnalysisReport = z.infer<typeof analysisReportSchema>;
