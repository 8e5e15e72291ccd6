// The command as users run it: the bundle `npm run build` makes from the
// compiled code (package.json "build:cli"; bin/kvrewind.js imports it). A
// bundle older than the last compile would test code that is gone, so it is
// refused with the command that remakes it.

import { existsSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** dist/test/ → dist/bundle/main.js */
export const KVREWIND_CLI = fileURLToPath(new URL("../bundle/main.js", import.meta.url));
const LAST_COMPILE = fileURLToPath(new URL("../.tsbuildinfo", import.meta.url));

if (!existsSync(KVREWIND_CLI)) throw new Error(`${KVREWIND_CLI} is missing: run \`npm run build\` (or \`npm run build:cli\` after tsc)`);
if (existsSync(LAST_COMPILE) && statSync(KVREWIND_CLI).mtimeMs < statSync(LAST_COMPILE).mtimeMs) {
  throw new Error(`${KVREWIND_CLI} is older than the last compile: run \`npm run build:cli\``);
}
