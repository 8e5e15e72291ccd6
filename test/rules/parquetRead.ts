// Reading a Parquet export back for the tests: DuckDB (@duckdb/node-api) on
// one side, `kvrewind query`'s own function on the incident on the other,
// both answers as plain values (integers as decimal text, lists as arrays)
// so that the two compare with deepEqual; and the command itself.

import { spawnSync } from "node:child_process";
import { DuckDBInstance, type DuckDBConnection } from "@duckdb/node-api";
import { runUserQuery } from "../../store/query/userQuery.js";
import { KVREWIND_CLI } from "../kvrewindCli.js";

const MAIN = KVREWIND_CLI;

export interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

export function kvrewind(...args: string[]): Run {
  const r = spawnSync(process.execPath, [MAIN, ...args], { encoding: "utf8" });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A value as both sides compare it: numbers of any width as their decimal text. */
export function plain(v: unknown): unknown {
  if (typeof v === "bigint" || typeof v === "number") return String(v);
  if (Array.isArray(v)) return v.map(plain);
  return v ?? null;
}

/** Rows of `kvrewind query` on the incident (every row). */
export function queryRows(path: string, sql: string): unknown[][] {
  return runUserQuery(path, sql, Number.MAX_SAFE_INTEGER).rows.map((row) => row.map(plain));
}

/** An in-memory DuckDB for a test file. */
export class Duck {
  private constructor(
    private readonly instance: DuckDBInstance,
    private readonly connection: DuckDBConnection,
  ) {}

  static async open(): Promise<Duck> {
    const instance = await DuckDBInstance.create(":memory:");
    return new Duck(instance, await instance.connect());
  }

  async rows(sql: string): Promise<unknown[][]> {
    return (await this.connection.runAndReadAll(sql)).getRowsJS().map((row) => row.map(plain));
  }

  close(): void {
    this.connection.closeSync();
    this.instance.closeSync();
  }
}
