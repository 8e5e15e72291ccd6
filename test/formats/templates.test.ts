// The template table (ingest/formats/templates/) checks itself: every sample
// line is claimed by its own template and no other, and the report of a
// sample that does not match names the template and how far its pattern got.
// Every sample also goes through the real log parser to its template's kind.

import { test } from "node:test";
import assert from "node:assert/strict";
import { LogKind } from "../../domain/kinds.js";
import { tableProblems, partialMatch } from "../../ingest/formats/templates/check.js";
import { COMPONENTS, SGLANG_TEMPLATES } from "../../ingest/formats/templates/index.js";
import { cap, type TemplateComponent } from "../../ingest/formats/templates/template.js";
import { parseLines } from "./sglangHarness.js";

test("every sample is claimed by its own template and by no other", () => {
  assert.deepEqual(tableProblems(COMPONENTS), []);
});

test("a sample its pattern does not match is reported with the template id and how far the pattern got", () => {
  const broken: TemplateComponent = {
    name: "fake",
    dialect: "sglang",
    title: "",
    intro: "",
    templates: [
      {
        id: "fake.skip",
        level: "debug",
        format: "Skipping chunk for room {room} because it has already failed or been aborted",
        source: "",
        checked: "",
        head: "Skipping chunk for room",
        pattern: /Skipping chunk for room (?<room>\d+) because it has already failed/ys,
        kind: LogKind.skipChunk,
        room: cap("room"),
        samples: ["[2026-06-11 14:03:07 DP0 TP3] Skipping chunk for room 6555093254675405189 because it has been cleared"],
      },
    ],
  };
  const problems = tableProblems([broken]);
  assert.equal(problems.length, 1);
  assert.equal(problems[0]!.id, "fake.skip");
  assert.match(problems[0]!.problem, /matched as far as \/Skipping chunk for room \(\?<room>\\d\+\) because it has /);
});

test("two templates that claim one sample are both named", () => {
  const [first] = COMPONENTS[0]!.templates;
  const twin: TemplateComponent = { name: "twin", dialect: "sglang", title: "", intro: "", templates: [{ ...first!, id: "twin.copy" }] };
  const problems = tableProblems([COMPONENTS[0]!, twin]);
  assert.ok(problems.some((p) => p.id === first!.id && p.problem.includes("twin.copy")));
});

test("partialMatch stops where the text departs from the pattern", () => {
  const got = partialMatch(/Prefill register attempt (\d+)\/(\d+) failed: status (\d{3})$/y, "Prefill register attempt 2/5 failed: stat", 0);
  assert.deepEqual(got, { pattern: "Prefill register attempt (\\d+)\\/(\\d+) failed: stat", matched: "Prefill register attempt 2/5 failed: stat" });
});

for (const component of COMPONENTS) {
  for (const t of component.templates) {
    test(`${t.id}: its samples parse to ${t.kind} through the log parser`, () => {
      for (const sample of t.samples) {
        const { events, issues } = parseLines([sample]);
        assert.deepEqual(issues, [], sample);
        assert.equal(events[0]!.kind, t.kind, sample);
      }
    });
  }
}

test("the matcher names the template that claims a message", () => {
  const line = "Received abort notification for room 6555093254675405189, ignoring (already completed or unknown)";
  assert.equal(SGLANG_TEMPLATES.templateOf(line, 0)?.id, "sglangMooncake.abort_ignored");
  assert.equal(SGLANG_TEMPLATES.templateOf("Received a request", 0), null);
});

