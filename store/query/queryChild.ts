// The process a time-limited query runs in (queryWithLimit.ts): it says it is
// ready, runs the one query it is sent and reports the result or the error.
// SQLite cannot be interrupted from JavaScript here, so a query past its limit
// is ended with its process.

import { QueryError, runUserQuery } from "./userQuery.js";

interface QueryRequest {
  path: string;
  sql: string;
  maxRows: number;
}

process.once("message", (req: QueryRequest) => {
  try {
    process.send!({ ok: true, result: runUserQuery(req.path, req.sql, req.maxRows) });
  } catch (e) {
    process.send!({ ok: false, refused: e instanceof QueryError, message: (e as Error).message });
  }
  process.disconnect();
});
process.send!({ ready: true });
