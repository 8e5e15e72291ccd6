// Files of the kvrewind package (its docs, fixtures, web page, package.json),
// found from the package's root rather than from where a module sits: the same
// module runs from dist/<floor>/… when the tests import it and from the CLI's
// bundle in dist/bundle/ (package.json "build:cli"). Node only.

import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const PACKAGE_NAME = "kvrewind";

function findPackageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, "package.json");
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, "utf8")) as { name?: unknown }).name === PACKAGE_NAME) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no package.json of ${PACKAGE_NAME} above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
}

let root: string | undefined;

/** The path of `relative` (a path with `/`) inside the package's root folder. */
export function packageFile(relative: string): string {
  root ??= findPackageRoot();
  return join(root, ...relative.split("/"));
}

/**
 * A worker thread's or child process's entry point (`worker`, `queryChild`,
 * `pipeline-main`) in the CLI's bundle, wherever its caller runs from: the
 * bundle loads in a fraction of the time the module graph takes (measured in
 * bench/RESULTS.md), and those entry points start once per load, query or upload.
 */
export function bundledEntry(name: string): string {
  return packageFile(`dist/bundle/${name}.js`);
}
