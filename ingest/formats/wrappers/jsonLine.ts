// A wrapper whose every line is one JSON object (Docker's json-file,
// journalctl -o json): the object, or why the line is none.

/** The line's JSON object; a string saying why it is not one of `what`'s entries otherwise. */
export function jsonObjectOf(line: string, what: string): Record<string, unknown> | string {
  if (line.charCodeAt(0) !== 123 /* { */) return `not a ${what} entry`;
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (e) {
    return `broken ${what} entry (${(e as Error).message})`;
  }
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : `not a ${what} entry`;
}
