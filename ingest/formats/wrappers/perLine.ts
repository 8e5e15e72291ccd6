// A wrapper each of whose lines unwraps on its own, with no partial line to
// join across lines (every wrapper but CRI's and Docker's json-file): a line is
// in its shape when it unwraps to a line, unless the wrapper says otherwise.

import type { SingleWrapper, Unwrapped, WrapperName } from "./index.js";

export function perLineWrapper(name: WrapperName, unwrap: (line: string) => Unwrapped, matches = (line: string) => unwrap(line).kind === "line"): SingleWrapper {
  return { name, matches, create: () => ({ unwrap, end: () => null }) };
}
