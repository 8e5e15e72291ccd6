// The hand-written bundles of test/bundles/ (README there), ingested by the
// real pipeline into temporary databases and analyzed once per test run;
// facts a test needs (rooms, rids) are read from the bundle's own files.

import { readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { spawnSync } from "node:child_process";
import { ingest } from "../../ingest/pipeline.js";
import { openIncident, type IncidentDb } from "../../store/db.js";
import { analyzeIncident } from "../../analyzer/rules/index.js";
import type { AnalysisReport, Finding } from "../../analyzer/rules/finding.js";
import { scratchDir } from "../scratchDir.js";

export const BUNDLES = fileURLToPath(new URL("../../../test/bundles/", import.meta.url));
const MAIN = fileURLToPath(new URL("../../cli/main.js", import.meta.url));

export const BUNDLE_NAMES = readdirSync(BUNDLES).filter((n) => statSync(join(BUNDLES, n)).isDirectory()).sort();

export interface Analyzed {
  db: IncidentDb;
  path: string;
  report: AnalysisReport;
}

const analyzed = new Map<string, Analyzed>();
const roots: string[] = [];

function filesOf(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesOf(join(dir, e.name)) : [join(dir, e.name)]));
}

/** The bundle ingested and analyzed (once per run). */
export async function bundle(name: string): Promise<Analyzed> {
  const known = analyzed.get(name);
  if (known) return known;
  const dir = join(BUNDLES, name);
  const root = scratchDir(`kvrewind-bundle-${name}-`);
  roots.push(root);
  const path = join(root, "incident.db");
  const cwd = process.cwd();
  process.chdir(dir);
  try {
    await ingest({ db: path, paths: filesOf(dir).map((f) => relative(dir, f)) });
  } finally {
    process.chdir(cwd);
  }
  const db = openIncident(path);
  const made = { db, path, report: analyzeIncident(db, { name }) };
  analyzed.set(name, made);
  return made;
}

/** Closes the databases and removes the temporary directories. */
export function cleanUp(): void {
  for (const a of analyzed.values()) a.db.close();
  analyzed.clear();
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
}

/** A file of a bundle, as text. */
export function bundleText(name: string, path: string): string {
  return readFileSync(join(BUNDLES, name, path), "utf8");
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
