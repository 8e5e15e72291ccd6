// A quick check that a value passes a zod schema, read off the schema's own
// definition: the probe schema (./schema.ts) stays the one statement of each
// field's shape, and a record whose fields all pass the check skips zod, whose
// parse of a record cost a fifth of reading a probe line and half its garbage
// (bench/RESULTS.md, bench:ingest). The check is never looser than zod: a part
// of a definition it does not read (a kind of schema or check not listed here)
// makes it answer false for the whole schema, and the caller asks zod.

import type { z } from "zod";

type Pass = (v: unknown) => boolean;

const NEVER: Pass = () => false;

/** The parts of a zod definition the check reads. */
interface Def {
  type: string;
  checks?: { _zod: { def: CheckDef } }[];
  innerType?: z.ZodType;
  options?: readonly z.ZodType[];
  items?: readonly z.ZodType[];
  rest?: z.ZodType | null;
  element?: z.ZodType;
  entries?: Record<string, unknown>;
}

interface CheckDef {
  check: string;
  format?: string;
  value?: unknown;
  inclusive?: boolean;
  pattern?: RegExp;
  minimum?: number;
  fn?: (v: unknown) => unknown;
}

function defOf(schema: z.ZodType): Def {
  return (schema as unknown as { _zod: { def: Def } })._zod.def;
}

/** True only for a value `schema` certainly accepts. */
export function certainPass(schema: z.ZodType): Pass {
  const def = defOf(schema);
  const own = typePass(def);
  const checks = (def.checks ?? []).map((c) => checkPass(c._zod.def));
  if (own === NEVER || checks.includes(NEVER)) return NEVER;
  if (checks.length === 0) return own;
  return (v) => {
    if (!own(v)) return false;
    for (const c of checks) if (!c(v)) return false;
    return true;
  };
}

/** The check of an object schema's declared fields (the others are not judged: z.object passes over them). */
export function certainFieldsPass(fields: z.ZodRawShape): (rec: Record<string, unknown>) => boolean {
  const keys = Object.keys(fields);
  const passes = keys.map((k) => certainPass(fields[k] as z.ZodType));
  return (rec) => {
    for (let i = 0; i < keys.length; i++) if (!passes[i]!(rec[keys[i]!])) return false;
    return true;
  };
}

function typePass(def: Def): Pass {
  switch (def.type) {
    case "unknown":
      return () => true;
    case "boolean":
      return (v) => typeof v === "boolean";
    case "number":
      return (v) => typeof v === "number" && Number.isFinite(v);
    case "string":
      return (v) => typeof v === "string";
    case "enum": {
      const values = Object.values(def.entries ?? {});
      return (v) => values.includes(v);
    }
    case "optional": {
      const inner = certainPass(def.innerType!);
      return inner === NEVER ? NEVER : (v) => v === undefined || inner(v);
    }
    case "union": {
      const options = (def.options ?? []).map(certainPass);
      if (options.includes(NEVER)) return NEVER;
      return (v) => {
        for (const p of options) if (p(v)) return true;
        return false;
      };
    }
    case "tuple": {
      if (def.rest !== null && def.rest !== undefined) return NEVER;
      const items = (def.items ?? []).map(certainPass);
      if (items.includes(NEVER)) return NEVER;
      return (v) => {
        if (!Array.isArray(v) || v.length !== items.length) return false;
        for (let i = 0; i < items.length; i++) if (!items[i]!(v[i])) return false;
        return true;
      };
    }
    case "array": {
      const element = certainPass(def.element!);
      if (element === NEVER) return NEVER;
      return (v) => {
        if (!Array.isArray(v)) return false;
        for (const x of v) if (!element(x)) return false;
        return true;
      };
    }
    default:
      return NEVER;
  }
}

function checkPass(c: CheckDef): Pass {
  switch (c.check) {
    case "number_format":
      return c.format === "safeint" ? (v) => Number.isSafeInteger(v) : NEVER;
    case "greater_than": {
      const bound = c.value;
      if (typeof bound !== "number") return NEVER;
      return c.inclusive === true ? (v) => (v as number) >= bound : (v) => (v as number) > bound;
    }
    case "less_than": {
      const bound = c.value;
      if (typeof bound !== "number") return NEVER;
      return c.inclusive === true ? (v) => (v as number) <= bound : (v) => (v as number) < bound;
    }
    case "string_format": {
      const pattern = c.pattern;
      if (c.format !== "regex" || pattern === undefined || pattern.global || pattern.sticky) return NEVER;
      return (v) => pattern.test(v as string);
    }
    case "min_length": {
      const min = c.minimum ?? Infinity;
      return (v) => (v as { length: number }).length >= min;
    }
    case "custom": {
      const fn = c.fn;
      return fn === undefined ? NEVER : (v) => fn(v) === true;
    }
    default:
      return NEVER;
  }
}
