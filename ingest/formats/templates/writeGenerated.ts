// `npm run docs:templates`: writes what is generated from the template table,
// docs/log-templates.md's template sections, SGLang heads table and fallback prints, domain/templateSigns.ts, and
// docs/evidence.md's probe field table from the probe schema.

import { readFileSync, writeFileSync } from "node:fs";
import { renderHeadDocs, renderTemplateDocs } from "./docs.js";
import { renderFallbackDocs } from "../log/fallbackDocs.js";
import { TEMPLATES } from "./index.js";
import { renderSignsModule } from "./signs.js";
import { renderProbeFieldDocs } from "../probe/fieldDocs.js";

// From dist/ingest/formats/templates/ back to the sources.
const ROOT = new URL("../../../../", import.meta.url);
const DOCS = new URL("docs/log-templates.md", ROOT);
const SIGNS = new URL("domain/templateSigns.ts", ROOT);
const EVIDENCE = new URL("docs/evidence.md", ROOT);

writeFileSync(DOCS, renderFallbackDocs(renderHeadDocs(renderTemplateDocs(readFileSync(DOCS, "utf8")))));
writeFileSync(SIGNS, renderSignsModule(TEMPLATES));
writeFileSync(EVIDENCE, renderProbeFieldDocs(readFileSync(EVIDENCE, "utf8")));
console.log("wrote docs/log-templates.md, domain/templateSigns.ts and docs/evidence.md's probe fields");
