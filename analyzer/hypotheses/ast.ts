// The hypothesis language's syntax tree (docs/hypotheses.md): what the text
// form parses into and what the JSON file form is, validated by one zod
// schema. Field names are checked against the event catalogue separately
// (check.ts), so that an unknown kind or field is an error, not a no-match.

import { z } from "zod";

/** A literal as written: numbers keep their text too, so a 19-digit room is compared without loss. */
export const literalSchema = z.union([z.string(), z.number(), z.boolean()]);
export type Literal = z.infer<typeof literalSchema>;

export const COMPARATORS = ["=", "!=", "<", "<=", ">", ">="] as const;
export type Comparator = (typeof COMPARATORS)[number];

export const conditionSchema = z.discriminatedUnion("op", [
  z.object({ field: z.string().min(1), op: z.enum(COMPARATORS), value: literalSchema }),
  z.object({ field: z.string().min(1), op: z.literal("in"), values: z.array(literalSchema).min(1) }),
  /** A regular expression (JavaScript syntax) the field's text must match. */
  z.object({ field: z.string().min(1), op: z.literal("~"), pattern: z.string().min(1) }),
  /** The field is present on the event (its value is not null). */
  z.object({ field: z.string().min(1), op: z.literal("exists") }),
]);
export type Condition = z.infer<typeof conditionSchema>;

/** Events of one kind whose fields meet every condition. */
export const patternSchema = z.object({
  kind: z.string().min(1),
  where: z.array(conditionSchema).default([]),
});
export type Pattern = z.infer<typeof patternSchema>;

/**
 * A correlation: the subject's field equals the other event's field (the same
 * name on both sides unless `other` names the partner's field, as a read's
 * `consumer` slot is a load's `slot`). `rank` is the whole rank identity
 * (host, role, dp, pp, tp); `page` checks each page of the subject's range.
 */
export const keySchema = z.object({ field: z.string().min(1), other: z.string().min(1).optional() });
export type Key = z.infer<typeof keySchema>;

export const distanceSchema = z.union([
  z.object({ us: z.number().positive() }).strict(),
  z.object({ events: z.number().int().positive() }).strict(),
]);
export type Distance = z.infer<typeof distanceSchema>;

/** There is (`exists`) / there is no event matching `other` before / after the subject. */
export const orderClauseSchema = z.object({
  type: z.literal("order"),
  exists: z.boolean(),
  other: patternSchema,
  direction: z.enum(["before", "after"]),
  within: distanceSchema.optional(),
  /** `before` only: the partner counts when it came after the last event matching this (a new load restarts the wait). */
  since: patternSchema.optional(),
  same: z.array(keySchema).default([]),
});
export type OrderClause = z.infer<typeof orderClauseSchema>;

/** The subject itself meets every condition (a setting sized for the dtype in use). */
export const requireClauseSchema = z.object({
  type: z.literal("require"),
  conditions: z.array(conditionSchema).min(1),
});
export type RequireClause = z.infer<typeof requireClauseSchema>;

export const clauseSchema = z.discriminatedUnion("type", [orderClauseSchema, requireClauseSchema]);
export type Clause = z.infer<typeof clauseSchema>;

/** For every event matching `subject`, every clause holds. */
export const everySchema = z.object({
  type: z.literal("every"),
  subject: patternSchema,
  clauses: z.array(clauseSchema).min(1),
});
export type EveryProperty = z.infer<typeof everySchema>;

/** All events matching `subject` that share the `same` key (one per rank) agree on `fields`. */
export const agreeSchema = z.object({
  type: z.literal("agree"),
  subject: patternSchema,
  fields: z.array(z.string().min(1)).min(1),
  same: z.array(keySchema).min(1),
});
export type AgreeProperty = z.infer<typeof agreeSchema>;

/** No event matches `subject` (a bootstrap thread never dies). */
export const neverSchema = z.object({
  type: z.literal("never"),
  subject: patternSchema,
});
export type NeverProperty = z.infer<typeof neverSchema>;

export const propertySchema = z.discriminatedUnion("type", [everySchema, agreeSchema, neverSchema]);
export type Property = z.infer<typeof propertySchema>;

/** A hypothesis as a file holds it: a name and one-line statement for the ledger, and the property. */
export const hypothesisSchema = z.object({
  name: z.string().min(1).optional(),
  statement: z.string().min(1).optional(),
  property: propertySchema,
});
export type Hypothesis = z.infer<typeof hypothesisSchema>;
