// Bounded text for the page: a log record can be one 64 MiB line, and a page
// that receives it whole stalls. An event goes out with the start of its
// text and the text's full length; the rest is fetched a slice at a time.
// Attribute strings and witness lines are cut the same way.

/** Characters of an event's text sent with the event. */
export const TEXT_EXCERPT = 16 * 1024;
/** Characters of one attribute string, and of one witness line in a finding. */
export const FIELD_EXCERPT = 2 * 1024;
/** The most characters one slice request returns. */
export const MAX_SLICE = 1024 * 1024;

export function excerpt(text: string, limit: number): string {
  return text.length <= limit ? text : text.slice(0, limit);
}

/** Attributes with every string longer than FIELD_EXCERPT cut, and how many characters were left out of each. */
export function boundedAttrs(attrs: Record<string, unknown> | null): { attrs: Record<string, unknown> | null; cut: Record<string, number> } {
  const cut: Record<string, number> = {};
  if (!attrs) return { attrs, cut };
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(attrs)) {
    if (typeof v === "string" && v.length > FIELD_EXCERPT) {
      out[k] = v.slice(0, FIELD_EXCERPT);
      cut[k] = v.length - FIELD_EXCERPT;
    } else out[k] = v;
  }
  return { attrs: out, cut };
}
