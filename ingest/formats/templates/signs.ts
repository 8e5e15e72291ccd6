// The version and backend signs the template rows declare, as the analyzer
// reads them. analyzer/replay/logSigns.ts may not import the ingest, so
// `npm run docs:templates` writes them to domain/templateSigns.ts with, per
// sign, the events that show it: the kind of each template that declares it,
// its constant attributes and the captured ones every such event carries.
// test/formats/templateDocs.test.ts fails when that file is stale.

import { isCapture, type LogTemplate, type TemplateSign } from "./template.js";

/** One template's event as stored: its kind, the attrs it always has with their values, and the attrs it always has. */
export interface SignEvent {
  template: string;
  kind: string;
  attrs: Record<string, unknown>;
  has: string[];
}

export interface DeclaredSign extends TemplateSign {
  events: SignEvent[];
}

function signEvent(t: LogTemplate): SignEvent {
  const attrs: Record<string, unknown> = {};
  const has: string[] = [];
  for (const [key, v] of Object.entries(t.attrs ?? {})) {
    if (isCapture(v)) has.push(key);
    else attrs[key] = v;
  }
  return { template: t.id, kind: t.kind, attrs, has };
}

/** The declared signs, one per distinct declaration, each with every template that declares it, in table order. */
export function declaredSigns(templates: readonly LogTemplate[]): DeclaredSign[] {
  const byKey = new Map<string, DeclaredSign>();
  for (const t of templates) {
    for (const sign of t.signs ?? []) {
      const key = JSON.stringify(sign);
      let declared = byKey.get(key);
      if (declared === undefined) {
        declared = { ...sign, events: [] };
        byKey.set(key, declared);
      }
      declared.events.push(signEvent(t));
    }
  }
  return [...byKey.values()];
}

/** The text of domain/templateSigns.ts. */
export function renderSignsModule(templates: readonly LogTemplate[]): string {
  return [
    "// The version and backend signs the log templates declare (ingest/formats/templates/), for",
    "// analyzer/replay/logSigns.ts, which may not import the ingest: per sign, the events that show it.",
    "// Written by `npm run docs:templates` from the template rows; a test fails when it is stale.",
    "",
    'import type { Backend } from "./vocabulary.js";',
    "",
    "export interface SignEvent {",
    "  readonly template: string;",
    "  readonly kind: string;",
    "  /** Attributes the template's event always has, with these values. */",
    "  readonly attrs: Readonly<Record<string, string | number | boolean>>;",
    "  /** Attributes the template's event always has. */",
    "  readonly has: readonly string[];",
    "}",
    "",
    "export interface DeclaredSign {",
    "  readonly why: string;",
    "  readonly backend?: Backend;",
    "  /** A change of the profile's CHANGES: the first release with it is a lower bound. */",
    "  readonly since?: string;",
    "  /** A change of the profile's CHANGES: the last release without it is an upper bound. */",
    "  readonly until?: string;",
    "  readonly sinceIf?: { readonly backend: Backend; readonly change: string };",
    "  readonly events: readonly SignEvent[];",
    "}",
    "",
    `export const TEMPLATE_SIGNS: readonly DeclaredSign[] = ${JSON.stringify(declaredSigns(templates), null, 2)};`,
    "",
  ].join("\n");
}
