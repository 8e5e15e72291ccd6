// docs/log-templates.md's template sections, written from the table: each
// component's section sits between `<!-- templates:{name} -->` and
// `<!-- /templates -->`, SGLang's heads (./sglang/sglangHeads.ts) between
// `<!-- sglang-heads -->` and `<!-- /sglang-heads -->`; the prose around them
// stays as written.

import { COMPONENTS } from "./index.js";
import { SGLANG_HEADS } from "./sglang/sglangHeads.js";
import { isCapture, type LogTemplate, type TemplateComponent } from "./template.js";

const OPEN = /<!-- templates:(\w+) -->\n[\s\S]*?<!-- \/templates -->/g;

/** `current` with every component's section rewritten; throws when a component has no section or a section no component. */
export function renderTemplateDocs(current: string): string {
  const byName = new Map(COMPONENTS.map((c) => [c.name, c]));
  const seen = new Set<string>();
  const out = current.replace(OPEN, (_all, name: string) => {
    const c = byName.get(name);
    if (c === undefined) throw new Error(`docs/log-templates.md has a section for ${name}, which is no template component`);
    seen.add(name);
    return section(c);
  });
  const missing = COMPONENTS.filter((c) => !seen.has(c.name)).map((c) => c.name);
  if (missing.length > 0) throw new Error(`docs/log-templates.md has no section for ${missing.join(", ")}`);
  return out;
}

function section(c: TemplateComponent): string {
  const rows = c.templates.map(
    (t) => `| \`${t.id}\` | ${cell(t.level)} | ${cell(t.format)} | ${cell(sourceOf(t))} | ${cell(eventOf(t))} | ${cell(t.checked)} |`,
  );
  return [
    `<!-- templates:${c.name} -->`,
    `### ${c.title}`,
    "",
    c.intro,
    "",
    "| template | level | format | source | event | ✔ |",
    "|-|-|-|-|-|-|",
    ...rows,
    "",
    "<!-- /templates -->",
  ].join("\n");
}

function sourceOf(t: LogTemplate): string {
  return t.versions === undefined ? t.source : `${t.source}; ${t.versions}`;
}

/** The event a template makes: its kind and side, the fields it fills, constant attrs with their values. */
function eventOf(t: LogTemplate): string {
  const parts: string[] = [`\`${t.kind}\`${t.role !== undefined ? ` ${t.role}` : ""}`];
  const fields: string[] = [];
  if (t.room !== undefined) fields.push("`room`");
  if (t.rid !== undefined) fields.push("`rid`");
  if (t.chunk !== undefined) fields.push("`chunk`");
  if (t.state !== undefined) fields.push(`\`state: ${t.state}\``);
  for (const [key, v] of Object.entries(t.attrs ?? {})) fields.push(isCapture(v) ? `\`${key}\`` : `\`${key}: ${String(v)}\``);
  if (t.read !== undefined) fields.push("read by hand (see format)");
  if (fields.length > 0) parts.push(fields.join(", "));
  return parts.join("; ");
}

function cell(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/\n/g, " ");
}

const HEADS = /<!-- sglang-heads -->\n[\s\S]*?<!-- \/sglang-heads -->/;

/** `current` with its SGLang heads table rewritten from ./sglang/sglangHeads.ts; throws when it has no place for it. */
export function renderHeadDocs(current: string): string {
  if (!HEADS.test(current)) throw new Error("docs/log-templates.md has no <!-- sglang-heads --> section");
  const rows = SGLANG_HEADS.map(
    (h) => `| \`${cell(h.head)}\` | ${h.level}${h.transfer === true ? ` (transfer${h.engine !== undefined ? `, ${h.engine}` : ""})` : ""} | \`${h.file}\` ${cell(h.where)} | ${cell(h.read)} |`,
  );
  return current.replace(HEADS, ["<!-- sglang-heads -->", "| head | level | file and function | read |", "|-|-|-|-|", ...rows, "<!-- /sglang-heads -->"].join("\n"));
}
