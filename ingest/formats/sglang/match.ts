// What a message-template module says about one message: `true` it filled the
// event, `false` the message is not one of its templates, or a string naming
// the template whose opening words matched while the rest did not (a truncated
// line, or a format that drifted): the caller keeps the line as unparsed and
// reports that name as a ParseIssue.

export type MatchResult = boolean | string;

/** Runs a sticky regex at `at`; null when it does not match there. */
export function execAt(re: RegExp, line: string, at: number): RegExpExecArray | null {
  re.lastIndex = at;
  return re.exec(line);
}

/** A Python repr'd string from a regex with two alternatives: `'...'` in group i, `"..."` in group i+1, or None. */
export function reprString(m: RegExpExecArray, i: number): string | undefined {
  return m[i] ?? m[i + 1];
}
