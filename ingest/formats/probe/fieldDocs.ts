// docs/evidence.md §3's field table, rendered from the probe schema
// (schema.ts) between `<!-- probe-fields -->` and `<!-- /probe-fields -->`,
// so the page and the reader cannot drift (test/formats/probeSchema.test.ts).

import { z } from "zod";
import { PROBE_FIELDS, SHAPE_NAMES } from "./schema.js";

const BLOCK = /<!-- probe-fields -->\n[\s\S]*?<!-- \/probe-fields -->/;

export function renderProbeFieldDocs(current: string): string {
  return current.replace(BLOCK, () => ["<!-- probe-fields -->", table(), "<!-- /probe-fields -->"].join("\n"));
}

function table(): string {
  const rows = Object.entries(PROBE_FIELDS).map(([ev, fields]) => {
    const cells = Object.entries(fields as z.ZodRawShape).map(([name, schema]) => field(name, schema as z.ZodType));
    return `| \`${ev}\` | ${cells.join("; ")} |`;
  });
  return ["| `ev` | its fields: name (shape) — meaning |", "|-|-|", ...rows].join("\n");
}

function field(name: string, schema: z.ZodType): string {
  const inner = schema instanceof z.ZodOptional ? (schema.unwrap() as z.ZodType) : schema;
  const about = schema.description ?? inner.description;
  return `\`${name}\` (${shapeOf(inner)})${about ? ` — ${about}` : ""}`;
}

function shapeOf(schema: z.ZodType): string {
  const named = SHAPE_NAMES.get(schema);
  if (named) return named;
  if (schema instanceof z.ZodString) return "string";
  if (schema instanceof z.ZodBoolean) return "boolean";
  if (schema instanceof z.ZodEnum) return schema.options.map((o) => `\`${String(o)}\``).join(" / ");
  return "any JSON";
}
