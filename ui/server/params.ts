// Zod schemas for every request parameter. Query values arrive as strings (or
// arrays of them when repeated); each schema says exactly what it accepts.

import { z } from "zod";
import { INCIDENT_ID } from "./registry.js";

const TS_US = z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const SEQ = z.coerce.number().int().min(0).max(0xfffffffe);

const IdList = z
  .string()
  .regex(/^\d{1,5}(,\d{1,5}){0,999}$/, "a comma-separated list of ids")
  .transform((v) => v.split(",").map(Number));

export const IncidentParams = z.object({
  id: z.string().regex(INCIDENT_ID, "an incident id is lowercase letters, digits, '-' and '_'"),
});

export const SeqParams = IncidentParams.extend({ seq: SEQ });

export const WindowQuery = z
  .object({
    from: TS_US,
    to: TS_US,
    /** Slices per lane when the window is aggregated (about one per two pixels). */
    buckets: z.coerce.number().int().min(1).max(8000).default(1000),
    /** Most single events sent before the window is aggregated instead. */
    max: z.coerce.number().int().min(1).max(200_000).default(20_000),
    /** Kind ids to leave out, comma-separated. */
    hide: IdList.optional(),
    /** Span types to leave out, comma-separated. */
    hideSpans: IdList.optional(),
  })
  .strict()
  .refine((q) => q.to > q.from, { message: "'to' must be after 'from'", path: ["to"] });

export const CounterQuery = z
  .object({
    from: TS_US,
    to: TS_US,
    /** Pixel columns the window is drawn across: at most two points each per track. */
    px: z.coerce.number().int().min(1).max(8000),
    /** Only the tracks of these lanes (comma-separated ids); all by default. */
    lanes: IdList.optional(),
  })
  .strict()
  .refine((q) => q.to > q.from, { message: "'to' must be after 'from'", path: ["to"] });

const ROOM = z.string().regex(/^\d{1,20}$/, "a room is its decimal number");

export const StateQuery = z
  .object({
    seq: SEQ.optional(),
    ts: TS_US.optional(),
    /** The model's view of this room alone. */
    room: ROOM.optional(),
    /** Of the rooms (and pages) in the state, at most this many; all by default. */
    limit: z.coerce.number().int().min(1).max(100_000).optional(),
    /** Only rooms whose number holds this text. */
    text: z.string().max(64).optional(),
    /** Only the rooms of this finding (its group's and its own). */
    finding: z.string().min(1).max(200).optional(),
    notSuccess: z.enum(["0", "1"]).optional(),
    /** This room first, and only its pages. */
    focus: ROOM.optional(),
  })
  .strict()
  .refine((q) => (q.seq === undefined) !== (q.ts === undefined), { message: "give exactly one of 'seq' and 'ts'" });

export const StepQuery = z
  .object({
    seq: SEQ,
    dir: z.enum(["next", "prev"]),
    by: z.enum(["any", "room", "rank", "page"]).default("any"),
    /** With by=page: the one page to follow (of the event's rank, buffer and layer), so that steps stay on it. */
    page: z.coerce.number().int().nonnegative().optional(),
  })
  .strict();

export const TextSliceQuery = z
  .object({
    from: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
    length: z.coerce.number().int().min(1).max(1024 * 1024).default(256 * 1024),
  })
  .strict();

export const OverviewQuery = z.object({ buckets: z.coerce.number().int().min(10).max(4000).default(1000) }).strict();

export const SearchQuery = z
  .object({
    q: z.string().trim().min(1, "type something to find").max(200),
    /** Also search the raw text of every record (slower: it reads every stored line). */
    text: z.enum(["0", "1"]).transform((v) => v === "1").optional(),
  })
  .strict();

export const FlowQuery = z.object({ room: z.string().regex(/^\d{1,20}$/, "a room is a decimal integer") }).strict();

export const UploadQuery = z
  .object({
    name: z
      .string()
      .min(1)
      .max(120)
      .regex(/^[^\u0000-\u001f<>]*$/, "a name has no control characters or angle brackets")
      .optional(),
  })
  .strict();

/** A user's read-only SQL (GET /api/incidents/:id/query) and its limits. */
export const SqlQuery = z.object({
  sql: z.string().min(1).max(20_000),
  timeoutMs: z.coerce.number().int().min(1).max(30_000).default(5000),
  maxRows: z.coerce.number().int().min(1).max(100_000).default(1000),
});
