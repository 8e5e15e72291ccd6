// What is written from the template table stays as the table says:
// docs/log-templates.md's template sections and domain/templateSigns.ts
// (`npm run docs:templates` rewrites both), and the signs name events that
// only the templates declaring them make.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import type { ParsedEvent } from "../../domain/event.js";
import { TEMPLATE_SIGNS, type SignEvent } from "../../domain/templateSigns.js";
import { CHANGES } from "../../analyzer/model/profile.js";
import { renderHeadDocs, renderTemplateDocs } from "../../ingest/formats/templates/docs.js";
import { TEMPLATES } from "../../ingest/formats/templates/index.js";
import { renderSignsModule } from "../../ingest/formats/templates/signs.js";
import { parseLines } from "./sglangHarness.js";

// From dist/test/formats/ back to the sources.
const ROOT = new URL("../../../", import.meta.url);
const read = (path: string): string => readFileSync(new URL(path, ROOT), "utf8");

test("docs/log-templates.md's template sections are the table's (npm run docs:templates)", () => {
  const doc = read("docs/log-templates.md");
  assert.equal(renderTemplateDocs(doc), doc);
  for (const t of TEMPLATES) assert.ok(doc.includes(`| \`${t.id}\` |`), t.id);
});

test("docs/log-templates.md's SGLang heads table is sglangHeads.ts's (npm run docs:templates)", () => {
  const doc = read("docs/log-templates.md");
  assert.equal(renderHeadDocs(doc), doc);
});

test("domain/templateSigns.ts is the table's signs (npm run docs:templates)", () => {
  assert.equal(read("domain/templateSigns.ts"), renderSignsModule(TEMPLATES));
});

test("every sign names changes the profile knows", () => {
  for (const s of TEMPLATE_SIGNS) {
    for (const change of [s.since, s.until, s.sinceIf?.change]) {
      if (change !== undefined) assert.ok(change in CHANGES, `${s.why}: ${change}`);
    }
  }
});

function isEventOf(e: SignEvent, ev: ParsedEvent): boolean {
  if (ev.kind !== e.kind) return false;
  for (const key in e.attrs) if (ev.attrs?.[key] !== e.attrs[key]) return false;
  return e.has.every((key) => ev.attrs?.[key] !== undefined);
}

test("a sign's events are those of the templates that declare it, and of no other", () => {
  for (const t of TEMPLATES) {
    for (const sample of t.samples) {
      const ev = parseLines([sample]).events[0]!;
      for (const sign of TEMPLATE_SIGNS) {
        const declares = sign.events.some((e) => e.template === t.id);
        const shows = sign.events.some((e) => isEventOf(e, ev));
        assert.equal(shows, declares, `${t.id} ${declares ? "declares" : "does not declare"} "${sign.why}": ${sample}`);
      }
    }
  }
});
