// `kvrewind check` as a user runs it: a property written in a file, checked
// against a fixture's logs, a verdict with the lines that prove it; JSON and
// Markdown; exit codes as `analyze`; errors with their position; the library
// list; and the A/B form on the fp8/bf16 pair.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { hypothesisVerdictSchema } from "../../analyzer/hypotheses/verdict.js";
import { loadLibrary } from "../../analyzer/hypotheses/library.js";
import { analysisSchema } from "../../analyzer/rules/analysis.js";
import { scratchDir } from "../scratchDir.js";
import { KVREWIND_CLI } from "../kvrewindCli.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const MAIN = KVREWIND_CLI;

function kvrewind(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [MAIN, ...args], { encoding: "utf8", cwd: ROOT });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function lineOf(path: string, line: number): string {
  return readFileSync(join(ROOT, path), "utf8").split("\n")[line - 1]!;
}

const dir = scratchDir("kvrewind-check-cli-");
const ingested = new Map<string, string>();

/** `kvrewind ingest fixtures/incidents/<name>` into <dir>/<name>.db, once per file: the tests below read it (`analyze` adds its findings). */
function ingestedFixture(name: "ab-fp8" | "ab-bf16"): string {
  let db = ingested.get(name);
  if (db === undefined) {
    db = join(dir, `${name}.db`);
    assert.equal(kvrewind("ingest", `fixtures/incidents/${name}`, "--db", db).status, 0);
    ingested.set(name, db);
  }
  return db;
}

test("a user's sentence in a file, checked against an incident's logs: violated, with the lines that prove it", () => {
  const file = join(dir, "reads-after-notify.hyp");
  writeFileSync(file, "# decode reads index-K only after the room's transfer is complete\nevery index_k kernel.read on decode comes after the room's last kv.notify\n");
  const r = kvrewind("check", "fixtures/incidents/latent-risks", "--hypothesis", file);
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stdout, /^reads-after-notify: decode reads index-K only after the room's transfer is complete\n/);
  assert.match(r.stdout, /VIOLATED — \d+ of 192 instance\(s\) violated/);
  const pair = /- a kv\.notify came after it\n {6}(\S+):(\d+) {2}.*\n {6}(\S+):(\d+) /.exec(r.stdout);
  assert.ok(pair, r.stdout);
  const [read, notify] = [lineOf(pair[1]!, Number(pair[2])), lineOf(pair[3]!, Number(pair[4]))];
  assert.match(read, /"ev": "kernel.read".*"buffer": "index_k"/);
  assert.match(notify, /"ev": "kv.notify"/);
  const room = /"room": (\d+)/.exec(read)![1]!;
  assert.match(notify, new RegExp(`"room": ${room}`), "the notification is the same room's");
});

test("--json follows the verdict schema; --markdown is a table; a consistent check exits 0", () => {
  const db = ingestedFixture("ab-fp8");
  const r = kvrewind("check", db, "page-not-reused-in-flight", "--json");
  assert.equal(r.status, 0, r.stderr);
  const out = z.object({ incident: z.string(), hypotheses: z.array(hypothesisVerdictSchema) }).parse(JSON.parse(r.stdout));
  assert.equal(out.hypotheses[0]!.verdict, "consistent");
  assert.equal(out.hypotheses[0]!.checked, 111);
  const md = kvrewind("check", db, "--expr", "every kv.free on decode has no kv.post after same room", "--markdown");
  assert.match(md.stdout, /^## Hypotheses checked\n\n\| hypothesis \| verdict \| checked \| violated \| rate \|/);
  assert.match(md.stdout, /\| holds \(ruled out as a cause\) \| 111 \| 0 \| 0\.0% \|/);
  const none = kvrewind("check", db, "hicache-gated-index-k-read");
  assert.equal(none.status, 0);
  assert.match(none.stdout, /UNDETERMINED[\s\S]*missing: no kernel\.read where buffer = index_k and consumer >= 0/);
});

test("the post-mortem ends with the hypotheses tested: confirmed, ruled out, and untested with what was missing", () => {
  const db = ingestedFixture("ab-bf16");
  const md = kvrewind("analyze", db, "--markdown").stdout;
  const ledger = md.slice(md.indexOf("\n## Hypotheses tested\n"));
  assert.ok(ledger.length > 1, "a ledger section");
  const rows = ledger.split("\n").filter((l) => l.startsWith("| ") && !l.startsWith("| hypothesis"));
  assert.equal(rows.length, loadLibrary().length);
  const row = (name: string) => rows.find((r) => r.startsWith(`| ${name} — `)) ?? "";
  assert.match(row("page-not-reused-in-flight"), /\| violated \(the fault it guards against happened\) \| 104 \| 9 \| 8\.7% \|$/);
  assert.match(row("read-after-last-notify"), /\| holds \(ruled out as a cause\) \| 91 \| 0 \| 0\.0% \|$/);
  assert.match(row("collectives-agree"), /\| undetermined \(evidence missing\): no coll\.enter event in the incident \| 0 \| 0 \| — \|$/);
  const verdicts = rows.map((r) => (/\| (violated|holds|undetermined)/.exec(r) ?? [])[1]);
  assert.deepEqual(verdicts, [...verdicts].sort((a, b) => ["violated", "holds", "undetermined"].indexOf(a!) - ["violated", "holds", "undetermined"].indexOf(b!)), "confirmed, then ruled out, then untested");
  assert.match(ledger, /### page-not-reused-in-flight: violated\n\n`every kv\.free where side = decode has no kv\.post after same room and has no kv\.done after same room`\n\n9 of 104 .*\n\n- a kv\.(post|done) came after it: `fixtures\/incidents\/ab-bf16\/d\d\/probe-tp\d\.jsonl:\d+`/);
});

test("analyze --json and the text report carry the same ledger: a hypotheses section beside the findings", () => {
  const db = ingestedFixture("ab-bf16");
  const json = kvrewind("analyze", db, "--json");
  const out = analysisSchema.parse(JSON.parse(json.stdout));
  assert.deepEqual(out.hypotheses.map((v) => v.name).sort(), loadLibrary().map((h) => h.name).sort());
  const reuse = out.hypotheses.find((v) => v.name === "page-not-reused-in-flight")!;
  assert.deepEqual([reuse.verdict, reuse.checked, reuse.violated], ["violated", 104, 9]);
  const witness = reuse.witnesses[0]!;
  assert.match(witness.subject.source, /^fixtures\/incidents\/ab-bf16\/d\d\/probe-tp\d\.jsonl$/);
  assert.equal(witness.subject.text, lineOf(witness.subject.source, witness.subject.line), "the witness is the line at file:line");
  const collectives = out.hypotheses.find((v) => v.name === "collectives-agree")!;
  assert.deepEqual([collectives.verdict, collectives.missing], ["undetermined", ["no coll.enter event in the incident"]]);

  const text = kvrewind("analyze", db).stdout;
  const section = text.slice(text.indexOf("\nHYPOTHESES TESTED ("));
  assert.match(section, /^\nHYPOTHESES TESTED \(\d+ violated, \d+ ruled out, \d+ undetermined\)\n/);
  const line = (name: string) => section.split("\n").find((l) => l.trimStart().startsWith(`${name} `)) ?? "";
  assert.match(line("page-not-reused-in-flight"), / violated +9 of 104 instance\(s\) violated \(8\.7%\)$/);
  assert.match(line("read-after-last-notify"), / consistent +0 of 91 instance\(s\) violated \(0\.0%\)$/);
  assert.match(line("collectives-agree"), / undetermined +missing: no coll\.enter event in the incident$/);
  const counted = /HYPOTHESES TESTED \((\d+) violated, (\d+) ruled out, (\d+) undetermined\)/.exec(section)!.slice(1).map(Number);
  assert.deepEqual(counted, (["violated", "consistent", "undetermined"] as const).map((v) => out.hypotheses.filter((h) => h.verdict === v).length));
});

test("errors: a mistyped kind at its position, no hypothesis, no input: exit 2", () => {
  const typo = kvrewind("check", "fixtures/incidents/healthy", "--expr", "every kernel.red has kv.notify before same room");
  assert.equal(typo.status, 2);
  assert.equal(typo.stderr, "kvrewind: expr:1:7: unknown kind 'kernel.red' (did you mean kernel.read?)\n");
  assert.equal(kvrewind("check", "fixtures/incidents/healthy").status, 2);
  assert.equal(kvrewind("check", "read-after-last-notify").status, 2);
});

test("check DB NAME with a name the library does not have: exit 2, the name, the nearest one when it is a typo, and every name there is", () => {
  const db = ingestedFixture("ab-fp8");
  const listed = kvrewind("check", "--list").stdout.trimEnd().split("\n").map((l) => l.split(/\s+/)[0]!);
  assert.ok(listed.length > 1);
  const unknown = kvrewind("check", db, "no-such-name");
  assert.equal(unknown.status, 2);
  assert.equal(unknown.stdout, "");
  const [first, heading, ...names] = unknown.stderr.trimEnd().split("\n");
  assert.equal(first, "kvrewind: no-such-name: no such file, and no library hypothesis of that name.");
  assert.match(heading!, /^The library's hypotheses/);
  assert.deepEqual(names.map((n) => n.trim()), listed);
  const typo = kvrewind("check", db, "read-after-last-notfy");
  assert.equal(typo.status, 2);
  assert.equal(typo.stderr.split("\n")[0], "kvrewind: read-after-last-notfy: no such file, and no library hypothesis of that name (did you mean read-after-last-notify?).");
});

test("--list names every library hypothesis with its statement", () => {
  const r = kvrewind("check", "--list");
  assert.equal(r.status, 0);
  for (const h of loadLibrary()) assert.match(r.stdout, new RegExp(`^${h.name} +${h.statement!.slice(0, 20).replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`, "m"));
});

test("A/B on the fp8/bf16 pair: stale writes after a free only with bf16, as rates of their instances; exit 1 when either side is violated; `diff` weighs the causes by them", () => {
  const fp8 = ingestedFixture("ab-fp8");
  const bf16 = ingestedFixture("ab-bf16");
  const r = kvrewind("check", fp8, bf16, "--hypothesis", "docs/hypotheses/page-not-reused-in-flight.hyp", "--hypothesis", "docs/hypotheses/checksums-agree.hyp", "--json");
  assert.equal(r.status, 1, r.stderr);
  const ab = JSON.parse(r.stdout) as { a: string; b: string; hypotheses: { hypothesis: string; a: z.infer<typeof hypothesisVerdictSchema>; b: z.infer<typeof hypothesisVerdictSchema> }[] };
  assert.deepEqual([ab.a, ab.b], ["ab-fp8.db", "ab-bf16.db"]);
  const reuse = ab.hypotheses.find((h) => h.hypothesis === "page-not-reused-in-flight")!;
  assert.deepEqual([reuse.a.verdict, reuse.a.rate], ["consistent", 0]);
  assert.equal(reuse.b.verdict, "violated");
  assert.ok(reuse.b.checked > 0 && reuse.b.rate! > 0.05, `bf16 rate ${reuse.b.rate}`);
  const sums = ab.hypotheses.find((h) => h.hypothesis === "checksums-agree")!;
  assert.deepEqual([sums.a.verdict, sums.b.verdict], ["consistent", "violated"]);
  const diff = JSON.parse(kvrewind("diff", fp8, bf16, "--json").stdout) as { causes: { cause: string; effect: string; reason: string; hypothesis?: { name: string; a: { violated: number }; b: { violated: number; checked: number } } }[] };
  const stale = diff.causes.find((c) => c.cause === "stale-slot-reuse")!;
  assert.equal(stale.effect, "supports");
  assert.deepEqual([stale.hypothesis?.name, stale.hypothesis?.a.violated, stale.hypothesis?.b.violated], ["page-not-reused-in-flight", 0, reuse.b.violated]);
  assert.match(stale.reason, /^page-not-reused-in-flight 0\/111 \(0\.0%\) → \d+\/\d+ \(\d+\.\d%\): the mechanism happened in B more often than in A$/);
  const uncounted = diff.causes.find((c) => c.cause === "uncounted-state-transfer")!;
  assert.deepEqual([uncounted.effect, uncounted.hypothesis?.name], ["refutes", "read-after-last-notify"]);
  const text = kvrewind("check", fp8, bf16, "page-not-reused-in-flight");
  assert.equal(text.status, 1, "violated in B");
  const reversed = kvrewind("check", bf16, fp8, "page-not-reused-in-flight");
  assert.equal(reversed.status, 1, "violated in A");
  const neither = kvrewind("check", fp8, fp8, "page-not-reused-in-flight");
  assert.equal(neither.status, 0, neither.stderr);
  assert.match(text.stdout, /ab-fp8\.db: consistent, 0 of 111 instance\(s\) violated \(0\.0%\)\n {2}ab-bf16\.db: violated, \d+ of \d+ instance\(s\) violated/);
});
