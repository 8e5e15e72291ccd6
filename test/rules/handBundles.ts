// The hand-written bundles of test/bundles/ (README there), ingested by the
// real pipeline and analyzed once per test run (test/sharedIncident.ts);
// facts a test needs (rooms, rids) are read from the bundle's own files.

import { cpSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { openIncident, type IncidentDb } from "../../store/db.js";
import type { AnalysisReport, Finding } from "../../analyzer/rules/finding.js";
import { BUNDLES, bundleInputs, incidentCopy } from "../sharedIncident.js";
import { scratchDir } from "../scratchDir.js";
import { KVREWIND_CLI } from "../kvrewindCli.js";

const MAIN = KVREWIND_CLI;

export const BUNDLE_NAMES = readdirSync(BUNDLES).filter((n) => statSync(join(BUNDLES, n)).isDirectory()).sort();

export interface Analyzed {
  db: IncidentDb;
  path: string;
  report: AnalysisReport;
}

const analyzed = new Map<string, Analyzed>();

/**
 * The bundle ingested and analyzed (once per test run, test/sharedIncident.ts),
 * in a database of this process's own: tests replay it, store snapshots and
 * analyses in it.
 */
export async function bundle(name: string): Promise<Analyzed> {
  const known = analyzed.get(name);
  if (known) return known;
  const { path, report } = await incidentCopy(bundleInputs(name));
  const made = { db: openIncident(path), path, report };
  analyzed.set(name, made);
  return made;
}

/** Closes the databases (their directories go when the process exits). */
export function cleanUp(): void {
  for (const a of analyzed.values()) a.db.close();
  analyzed.clear();
}

/** A file of a bundle, as text. */
export function bundleText(name: string, path: string): string {
  return readFileSync(join(BUNDLES, name, path), "utf8");
}

/** One file of `lines`, named `name` (its name may give its role), analyzed by the CLI: its JSON report. */
export function analyzeLines(name: string, lines: readonly string[]): AnalysisReport {
  const file = join(scratchDir("kvrewind-lines-"), name);
  writeFileSync(file, `${lines.join("\n")}\n`);
  return JSON.parse(analyzeCli(file, "--json").stdout) as AnalysisReport;
}

/** `kvrewind analyze <db> [args]`: its exit code and output. */
export function analyzeCli(path: string, ...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [MAIN, "analyze", path, ...args], { encoding: "utf8" });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

export function violated(report: AnalysisReport, rule: Finding["rule"]): Finding[] {
  return report.findings.filter((f) => f.rule === rule && f.verdict === "violated");
}

export function coverage(report: AnalysisReport, rule: Finding["rule"]): AnalysisReport["coverage"]["rules"][number] {
  return report.coverage.rules.find((r) => r.rule === rule)!;
}

/** Every room a finding names. */
export function roomsOf(f: Finding): string[] {
  return f.rooms ?? (f.room ? [f.room] : []);
}

/**
 * A copy of a bundle's folder (`from`, a path inside test/bundles) in a scratch
 * directory as `as`, with some of its files removed and others written:
 * the same incident collected another way.
 */
export function bundleVariant(from: string, as: string, change: { remove?: readonly string[]; write?: Record<string, string> }): string {
  const dir = join(scratchDir("kvrewind-variant-"), as);
  cpSync(join(BUNDLES, from), dir, { recursive: true });
  for (const path of change.remove ?? []) rmSync(join(dir, path));
  for (const [path, text] of Object.entries(change.write ?? {})) writeFileSync(join(dir, path), text);
  return dir;
}
