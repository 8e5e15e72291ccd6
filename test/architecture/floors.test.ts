// The floors of DESIGN.md "Layout" hold: data flows domain ← ingest → store →
// analyzer → ui/report, so no import runs up a floor and no circle of files
// spans two floors. Read from the sources, not the build, so a type-only
// import counts as much as a runtime one (except where a browser bundle only
// borrows a wire type).

import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/** A file's floor: its top folder, ui split into its three parts. */
function floorOf(file: string): string {
  const [top, sub] = file.split("/");
  if (top === "ui") return sub === "wire.ts" ? "ui/view" : `ui/${sub}`;
  return top!;
}

/** What each floor may import besides itself. */
const MAY_IMPORT: Readonly<Record<string, readonly string[]>> = {
  domain: [],
  ingest: ["domain", "store"],
  store: ["domain"],
  analyzer: ["domain", "store"],
  "ui/view": ["domain", "analyzer"],
  "ui/server": ["domain", "store", "analyzer", "ingest", "ui/view"],
  "ui/web": ["domain", "ui/view"],
  cli: ["domain", "ingest", "store", "analyzer", "ui/server", "ui/view"],
};

interface Import {
  from: string;
  to: string;
  typeOnly: boolean;
}

function sources(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory()) sources(path, out);
    else if (e.name.endsWith(".ts")) out.push(path);
  }
  return out;
}

function importsOf(file: string): Import[] {
  const text = readFileSync(join(ROOT, file), "utf8");
  const found: Import[] = [];
  for (const m of text.matchAll(/(import|export)\s+(type\s+)?[^"';]*?from\s*"(\.{1,2}\/[^"]+)"|import\(\s*"(\.{1,2}\/[^"]+)"\s*\)/g)) {
    const spec = m[3] ?? m[4]!;
    const to = relative(ROOT, normalize(join(ROOT, dirname(file), spec))).replace(/\.js$/, ".ts");
    found.push({ from: file, to, typeOnly: m[2] !== undefined });
  }
  return found;
}

const FILES = Object.keys(MAY_IMPORT).flatMap((floor) => (floor.startsWith("ui/") ? [] : sources(floor)));
const UI_FILES = ["ui/server", "ui/view", "ui/web"].flatMap((d) => sources(d)).concat("ui/wire.ts");
const ALL = [...FILES, ...UI_FILES];
const IMPORTS = ALL.flatMap(importsOf);

test("no import runs up a floor", () => {
  const wrong = IMPORTS.filter(({ from, to, typeOnly }) => {
    const a = floorOf(from);
    const b = floorOf(to);
    if (a === b) return false;
    // The page borrows the server's wire types; nothing of the server runs in the browser.
    if (a === "ui/web" && typeOnly) return false;
    return !MAY_IMPORT[a]!.includes(b);
  });
  assert.deepEqual(
    wrong.map((i) => `${i.from} → ${i.to}`),
    [],
  );
});

test("the ground floor imports nothing, not even a package", () => {
  const text = sources("domain").map((f) => [f, readFileSync(join(ROOT, f), "utf8")] as const);
  const packages = text.filter(([, s]) => /from\s*"(?!\.)/.test(s)).map(([f]) => f);
  assert.deepEqual(packages, []);
});

/** Strongly connected components of the import graph (Tarjan), as lists of files. */
function circles(edges: readonly Import[]): string[][] {
  const next = new Map<string, string[]>();
  for (const e of edges) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  let counter = 0;
  const visit = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) out.push(component);
    }
  };
  for (const v of next.keys()) if (!index.has(v)) visit(v);
  return out;
}

test("no circle of files spans two floors", () => {
  const spanning = circles(IMPORTS).filter((c) => new Set(c.map(floorOf)).size > 1);
  assert.deepEqual(spanning, []);
});

test("the check itself sees an upward import and a circle across floors", () => {
  const planted: Import[] = [
    { from: "store/a.ts", to: "analyzer/b.ts", typeOnly: false },
    { from: "analyzer/b.ts", to: "store/a.ts", typeOnly: false },
  ];
  assert.equal(circles(planted).length, 1);
  assert.ok(!MAY_IMPORT.store!.includes(floorOf("analyzer/b.ts")));
});
