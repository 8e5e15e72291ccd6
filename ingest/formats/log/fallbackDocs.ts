// docs/log-templates.md's table of error-level prints followed by a fallback,
// written from ./fallbacks.ts between `<!-- fallback-prints -->` and
// `<!-- /fallback-prints -->` (`npm run docs:templates`).

import { FALLBACK_PRINTS } from "./fallbacks.js";

const SECTION = /<!-- fallback-prints -->\n[\s\S]*?<!-- \/fallback-prints -->/;

function cell(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/\n/g, " ");
}

/** `current` with its fallback table rewritten from ./fallbacks.ts; throws when it has no place for it. */
export function renderFallbackDocs(current: string): string {
  if (!SECTION.test(current)) throw new Error("docs/log-templates.md has no <!-- fallback-prints --> section");
  const rows = FALLBACK_PRINTS.map(
    (p) =>
      `| \`${p.id}\` | ${cell(p.library)} | ${cell(p.printed)} | \`${p.file}\` | \`${cell(p.format)}\` | ${cell(p.fallback)} | ${cell(p.source)} | ${cell(p.failing)} |`,
  );
  return current.replace(
    SECTION,
    ["<!-- fallback-prints -->", "| print | library | printed at | file | format | what the code does next | read in | stays a failure |", "|-|-|-|-|-|-|-|-|", ...rows, "<!-- /fallback-prints -->"].join("\n"),
  );
}
