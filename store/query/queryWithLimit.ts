// A user query with a time limit: run in a child process (queryChild.ts),
// ended when it runs past the limit (SQLite's interrupt is not reachable
// through better-sqlite3, and a runaway query never returns to JavaScript).
// The limit counts from when the child is ready, not its start-up.

import { fork } from "node:child_process";
import { QueryError, type QueryResult } from "./userQuery.js";
import { bundledEntry } from "../packageFiles.js";

export interface QueryLimits {
  timeoutMs: number;
  maxRows: number;
}

const CHILD = bundledEntry("queryChild");

type ChildMessage =
  | { ready: true }
  | { ok: true; result: QueryResult }
  | { ok: false; refused: boolean; message: string };

export function queryWithLimit(path: string, sql: string, limits: QueryLimits): Promise<QueryResult> {
  // Advanced serialization carries BigInt values (exact 64-bit integers) across.
  const child = fork(CHILD, [], { serialization: "advanced", stdio: ["ignore", "ignore", "pipe", "ipc"] });
  let stderr = "";
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  return new Promise<QueryResult>((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    let settled = false;
    const settle = (f: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      f();
    };
    child.on("message", (msg: ChildMessage) => {
      if ("ready" in msg) {
        child.send({ path, sql, maxRows: limits.maxRows });
        timer = setTimeout(() => {
          child.kill("SIGKILL");
          settle(() => reject(new QueryError(`query: stopped after ${limits.timeoutMs} ms (--timeout-ms); narrow it with WHERE or LIMIT`)));
        }, limits.timeoutMs);
      } else if (msg.ok) settle(() => resolve(msg.result));
      else settle(() => reject(msg.refused ? new QueryError(msg.message) : new Error(msg.message)));
    });
    child.on("exit", (code, signal) => {
      settle(() => reject(new Error(`query: the query process ended (${signal ?? `exit ${code}`})${stderr ? `: ${stderr.trim().split("\n").at(-1)}` : ""}`)));
    });
  });
}
