// Reading hypotheses from files: the text form (`.hyp`, docs/hypotheses.md
// "Syntax") or the JSON form of the syntax tree (`.json`), and the named
// library in docs/hypotheses/ (`kvrewind check --list`). Every error names
// the file and the line:column (text) or member path (JSON) at fault.

import { readdirSync, readFileSync } from "node:fs";
import { basename, extname, join } from "node:path";
import { hypothesisSchema, type Hypothesis } from "./ast.js";
import { HypothesisSyntaxError, parseHypothesis } from "./parser.js";
import { propertyProblems } from "./typing.js";
import { packageFile } from "../../store/packageFiles.js";

export const LIBRARY_DIR = packageFile("docs/hypotheses");

export function loadHypothesisFile(path: string): Hypothesis {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new Error(`${path}: ${(err as Error).message}`);
  }
  return extname(path) === ".json" ? fromJson(path, text) : fromText(text, path, basename(path, extname(path)));
}

/** A hypothesis given on the command line (`--expr`); errors carry `expr:line:column`. */
export function parseExpression(text: string): Hypothesis {
  return fromText(text, "expr");
}

function fromText(text: string, where: string, name?: string): Hypothesis {
  try {
    return parseHypothesis(text, name ? { name } : {});
  } catch (err) {
    if (err instanceof HypothesisSyntaxError) throw new Error(`${where}:${err.line}:${err.column}: ${err.detail}`);
    throw err;
  }
}

function fromJson(path: string, text: string): Hypothesis {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new Error(`${path}: not JSON: ${(err as Error).message}`);
  }
  const parsed = hypothesisSchema.safeParse(raw);
  if (!parsed.success) throw new Error(`${path}: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(top)"}: ${i.message}`).join("; ")}`);
  const problems = propertyProblems(parsed.data.property);
  if (problems.length) throw new Error(`${path}: ${problems.join("; ")}`);
  return { ...parsed.data, name: parsed.data.name ?? basename(path, ".json") };
}

/** The named hypotheses, in name order. */
export function loadLibrary(dir = LIBRARY_DIR): Hypothesis[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".hyp") || f.endsWith(".json"))
    .sort()
    .map((f) => loadHypothesisFile(join(dir, f)));
}

export function libraryHypothesis(name: string, dir = LIBRARY_DIR): Hypothesis | undefined {
  return loadLibrary(dir).find((h) => h.name === name);
}
