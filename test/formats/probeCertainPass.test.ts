// The quick check read off the probe schema (ingest/formats/probe/certainPass.ts)
// against zod itself: it never passes a value zod refuses, in any field of any
// `ev`, and on the fixtures' and bundles' probe records it passes exactly the
// records zod accepts, so their fields are judged without zod.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { certainFieldsPass, certainPass } from "../../ingest/formats/probe/certainPass.js";
import { PROBE_FIELDS } from "../../ingest/formats/probe/schema.js";
import { jsonRecord } from "../../ingest/formats/records.js";

const ROOTS = ["../../../fixtures/incidents/", "../../../test/bundles/"].map((r) => fileURLToPath(new URL(r, import.meta.url)));

/** Every documented form of a field, and the wrong shapes a hook or a hand edit could write. */
const VALUES: unknown[] = [
  undefined, null, true, false, 0, 3, 4, 5, 61, -1, 1.5, 2 ** 53, -(2 ** 53), NaN, Infinity, -Infinity,
  "", "0", "123", "5830149913321000001", "12a", "-3", "1.5", "1.5e3", "-2e-3", "kv", "index_k", "meta",
  "Failed", "Success", "KVPoll.Transferring", "KVPoll.Nope", "Waiting", "fp8", "0.5.14",
  [], [0], [0, 61], [61, 0], [3, 3], ["0", "61"], [0, 4, 8], [[0, 4]], [[0, 4], [8, 12]], [[4, 0]], [[3, 3]], [[0]], [[0, 4, 8]],
  [["3", "7"]], [["7", "3"]], [[-1, 4]], [[0, 1.5]], [[0, 2 ** 53]], [[0, "x"]], [[0, null]], [0, [1, 2]], {}, { lo: 0 },
];

test("the quick check never passes a value zod refuses, in any probe field", () => {
  let passed = 0;
  for (const [ev, fields] of Object.entries(PROBE_FIELDS)) {
    for (const [name, schema] of Object.entries(fields as z.ZodRawShape)) {
      const quick = certainPass(schema as z.ZodType);
      for (const v of VALUES) {
        if (!quick(v)) continue;
        passed++;
        assert.equal((schema as z.ZodType).safeParse(v).success, true, `${ev}.${name} = ${JSON.stringify(v)}`);
      }
    }
  }
  assert.ok(passed > 100, "the check passes the documented forms");
});

function probeFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? probeFiles(join(dir, e.name)) : /^probe.*\.jsonl$/.test(e.name) ? [join(dir, e.name)] : [],
  );
}

test("on the fixtures' and bundles' probe records the quick check passes exactly what zod accepts", () => {
  const schemas = new Map(Object.entries(PROBE_FIELDS).map(([ev, f]) => [ev, { zod: z.object(f as z.ZodRawShape), quick: certainFieldsPass(f as z.ZodRawShape) }]));
  let records = 0;
  for (const file of ROOTS.flatMap(probeFiles)) {
    readFileSync(file, "utf8")
      .split("\n")
      .forEach((text, i) => {
        const rec = text.trim() === "" ? undefined : jsonRecord(text, i + 1, []);
        const known = rec !== undefined && typeof rec.ev === "string" ? schemas.get(rec.ev) : undefined;
        if (rec === undefined || known === undefined) return;
        records++;
        assert.equal(known.quick(rec), known.zod.safeParse(rec).success, `${file}:${i + 1}`);
      });
  }
  assert.ok(records > 10_000, `${records} records`);
});
