// One Parquet file of an export, written a row group at a time with
// hyparquet-writer (pure JavaScript: no native build beside better-sqlite3's
// and zstd-napi's; ParquetWriter takes one row group per write, so nothing
// but the group in hand is held). Pages are compressed with zstd through the
// store's own codec (store/codec.ts), which DuckDB, ClickHouse and Spark all
// read. The file is written under a temporary name beside its final one and
// renamed into place only when the whole export has succeeded
// (parquetExport.ts), so a failed export leaves no partial file and an
// earlier export's files as they were.

import { closeSync, existsSync, openSync, readSync, renameSync, rmSync, statSync } from "node:fs";
import { fileWriter, ParquetWriter, type ColumnSource, type KeyValue, type SchemaElement } from "hyparquet-writer";
import { compress } from "../../store/codec.js";

/**
 * A column's type: the store's integers (seqs, µs times, ranks, lines,
 * pages) are safe JavaScript integers of any size, so INT64 holds each
 * exactly; INT32 is for small codes. Text is UTF-8 and lists are Parquet
 * LISTs (DuckDB reads them as `VARCHAR[]` and `BIGINT[]`).
 */
export type ParquetColumnType = "int64" | "int32" | "string" | "string list" | "int64 list";

export interface ParquetColumn {
  name: string;
  type: ParquetColumnType;
  /** Never NULL. */
  required?: boolean;
  /** Increasing or nearly increasing integers (seq, ts_us) take DELTA_BINARY_PACKED. */
  delta?: boolean;
  /**
   * Long text no query filters by range (JSON): no min/max statistics and no
   * dictionary attempt, the two costliest steps of the writer on such text
   * (measured with bench:export).
   */
  freeText?: boolean;
}

const PRIMITIVE: Record<ParquetColumnType, Pick<SchemaElement, "type" | "converted_type">> = {
  int64: { type: "INT64" },
  int32: { type: "INT32" },
  string: { type: "BYTE_ARRAY", converted_type: "UTF8" },
  "string list": { type: "BYTE_ARRAY", converted_type: "UTF8" },
  "int64 list": { type: "INT64" },
};

/** The Parquet schema of the columns: a LIST is the three-level group of the Parquet format's LogicalTypes.md. */
function schemaOf(columns: readonly ParquetColumn[]): SchemaElement[] {
  const schema: SchemaElement[] = [{ name: "root", num_children: columns.length }];
  for (const c of columns) {
    const repetition = c.required ? "REQUIRED" : "OPTIONAL";
    if (c.type.endsWith(" list")) {
      schema.push(
        { name: c.name, repetition_type: repetition, num_children: 1, converted_type: "LIST" },
        { name: "list", repetition_type: "REPEATED", num_children: 1 },
        { name: "element", repetition_type: "REQUIRED", ...PRIMITIVE[c.type] },
      );
    } else schema.push({ name: c.name, repetition_type: repetition, ...PRIMITIVE[c.type] });
  }
  return schema;
}

const PARQUET_MAGIC = "PAR1";

/** True when `path` is a file that begins and ends as a Parquet file does. */
export function isParquetFile(path: string): boolean {
  try {
    const size = statSync(path).size;
    if (!statSync(path).isFile() || size < 8) return false;
    const fd = openSync(path, "r");
    try {
      const head = Buffer.alloc(4);
      const tail = Buffer.alloc(4);
      readSync(fd, head, 0, 4, 0);
      readSync(fd, tail, 0, 4, size - 4);
      return head.toString("latin1") === PARQUET_MAGIC && tail.toString("latin1") === PARQUET_MAGIC;
    } finally {
      closeSync(fd);
    }
  } catch {
    return false;
  }
}

/** hyparquet-writer takes INT64 values as BigInt: the store's integers are safe ones, so each converts exactly. */
function physical(column: ParquetColumn, values: readonly unknown[]): ColumnSource["data"] {
  const asBigInt = (v: unknown): bigint | null => {
    if (v === null) return null;
    if (typeof v !== "number" || !Number.isSafeInteger(v)) throw new Error(`column ${column.name}: ${String(v)} is not an integer`);
    return BigInt(v);
  };
  if (column.type === "int64") return values.map(asBigInt);
  if (column.type === "int64 list") return values.map((list) => (list === null ? null : (list as unknown[]).map(asBigInt)));
  return values as ColumnSource["data"];
}

/** A Parquet file being written under a temporary name; `commit` puts it in place, `discard` removes it. */
export class ParquetFile {
  readonly partialPath: string;
  private readonly writer: ParquetWriter;
  private rows = 0;
  private groups = 0;

  constructor(
    readonly path: string,
    private readonly columns: readonly ParquetColumn[],
    kvMetadata: KeyValue[],
  ) {
    this.partialPath = `${path}.partial-${process.pid}`;
    this.writer = new ParquetWriter({
      writer: fileWriter(this.partialPath),
      schema: schemaOf(columns),
      codec: "ZSTD",
      compressors: { ZSTD: (bytes) => compress(bytes) },
      kvMetadata,
      createdBy: "kvrewind",
    });
  }

  /** Writes one row group of `count` rows: `data` holds an array of `count` values per column (null for NULL). */
  writeRowGroup(data: Readonly<Record<string, readonly unknown[]>>, count: number): void {
    if (count === 0) return;
    const columnData: ColumnSource[] = this.columns.map((c) => ({
      name: c.name,
      data: physical(c, data[c.name]!),
      ...(c.delta && { encoding: "DELTA_BINARY_PACKED" as const }),
      ...(c.freeText && { encoding: "PLAIN" as const, statistics: false }),
    }));
    this.writer.write({ columnData, rowGroupSize: count });
    this.rows += count;
    this.groups++;
  }

  /** Writes the footer; the file stays under its temporary name until `commit`. */
  finish(): { rows: number; rowGroups: number; bytes: number } {
    this.writer.finish();
    return { rows: this.rows, rowGroups: this.groups, bytes: statSync(this.partialPath).size };
  }

  commit(): void {
    renameSync(this.partialPath, this.path);
  }

  discard(): void {
    if (existsSync(this.partialPath)) rmSync(this.partialPath, { force: true });
  }
}
