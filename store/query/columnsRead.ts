// Which columns of `events` a user's statement can read, from its text alone.
// better-sqlite3's virtual tables do not say which columns SQLite asks for,
// and building every column of every event (the attributes as JSON above
// all) is most of a full scan's time; so the events table builds only the
// columns the statement names. SQLite can reach a column of a virtual table
// only by its name, through `*`, or implicitly through NATURAL JOIN, so a
// statement that names a column (in any case, quoted or bare), holds a `*`
// other than count(*)'s, or says NATURAL reads that column or all of them.
// A name that is not the events column (another table's `line`) only costs
// the time of building it.

import { EVENTS_TABLE_COLUMNS, type EventsColumn } from "../eventsTable.js";

const BY_LOWER_NAME = new Map<string, EventsColumn>(EVENTS_TABLE_COLUMNS.map((c) => [c, c]));

const WORD = /[\p{L}_][\p{L}\p{N}_$]*/uy;

type Token = { word: string } | { punct: string };

/** The statement's words (identifiers and keywords, quoted or not) and punctuation; literals and comments dropped. */
function tokens(sql: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  const until = (close: string, from: number): number => {
    // A quote doubled inside its literal or identifier escapes itself.
    let j = from;
    for (;;) {
      const k = sql.indexOf(close, j);
      if (k < 0) return sql.length;
      if (close.length === 1 && sql[k + 1] === close) j = k + 2;
      else return k + close.length;
    }
  };
  while (i < sql.length) {
    const ch = sql[i]!;
    if (/\s/.test(ch)) i++;
    else if (sql.startsWith("--", i)) i = sql.indexOf("\n", i) < 0 ? sql.length : sql.indexOf("\n", i);
    else if (sql.startsWith("/*", i)) i = until("*/", i + 2);
    else if (ch === "'") i = until("'", i + 1);
    else if (ch === '"' || ch === "`") {
      const end = until(ch, i + 1);
      out.push({ word: sql.slice(i + 1, end - 1).replaceAll(ch + ch, ch) });
      i = end;
    } else if (ch === "[") {
      const end = sql.indexOf("]", i);
      const stop = end < 0 ? sql.length : end;
      out.push({ word: sql.slice(i + 1, stop) });
      i = stop + 1;
    } else {
      WORD.lastIndex = i;
      const m = WORD.exec(sql);
      if (m) {
        out.push({ word: m[0] });
        i += m[0].length;
      } else {
        out.push({ punct: ch });
        i++;
      }
    }
  }
  return out;
}

const isPunct = (t: Token | undefined, p: string): boolean => t !== undefined && "punct" in t && t.punct === p;

/** The events columns `sql` can read: every column when it holds `*` (other than count(*)) or NATURAL. */
export function eventsColumnsRead(sql: string): Set<EventsColumn> {
  const list = tokens(sql);
  const read = new Set<EventsColumn>();
  for (let k = 0; k < list.length; k++) {
    const t = list[k]!;
    if ("punct" in t) {
      if (t.punct === "*" && !(isPunct(list[k - 1], "(") && isPunct(list[k + 1], ")"))) return new Set(EVENTS_TABLE_COLUMNS);
      continue;
    }
    const word = t.word.toLowerCase();
    if (word === "natural") return new Set(EVENTS_TABLE_COLUMNS);
    const column = BY_LOWER_NAME.get(word);
    if (column !== undefined) read.add(column);
  }
  return read;
}
