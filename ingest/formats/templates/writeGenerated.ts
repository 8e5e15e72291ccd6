// `npm run docs:templates`: writes what is generated from the template table,
// docs/log-templates.md's template sections and domain/templateSigns.ts.

import { readFileSync, writeFileSync } from "node:fs";
import { renderTemplateDocs } from "./docs.js";
import { TEMPLATES } from "./index.js";
import { renderSignsModule } from "./signs.js";

// From dist/ingest/formats/templates/ back to the sources.
const ROOT = new URL("../../../../", import.meta.url);
const DOCS = new URL("docs/log-templates.md", ROOT);
const SIGNS = new URL("domain/templateSigns.ts", ROOT);

writeFileSync(DOCS, renderTemplateDocs(readFileSync(DOCS, "utf8")));
writeFileSync(SIGNS, renderSignsModule(TEMPLATES));
console.log("wrote docs/log-templates.md and domain/templateSigns.ts");
