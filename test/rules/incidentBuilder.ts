// Builds a real incident database from log text for rule tests: each file is
// parsed by the real SGLang log parser and its events are written to a fresh
// SQLite incident in time order.

import { createHash } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ParsedEvent, ParseIssue, Role } from "../../ingest/event.js";
import { sglangLog } from "../../ingest/formats/sglangLog.js";
import { openIncident, type IncidentDb } from "../../ingest/store/db.js";

export interface SourceFile {
  path: string;
  text: string;
  host?: string;
  role?: Role;
}

export function buildIncident(files: readonly SourceFile[]): IncidentDb {
  const db = openIncident(join(mkdtempSync(join(tmpdir(), "kvrewind-rules-")), "incident.db"));
  const all: { ev: ParsedEvent; sourceId: number; order: number }[] = [];
  const insertSource = db.prepare(
    "INSERT INTO sources (path, format, host, role, sha256, bytes, lines, events, unparsed, errors, first_ts_us, last_ts_us, status, ingested_at) " +
      "VALUES (?, 'sglang-log', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'complete', ?)",
  );
  for (const f of files) {
    const parser = sglangLog.createParser({ sourcePath: f.path, host: f.host, role: f.role, tzOffsetMinutes: 0 });
    const events: ParsedEvent[] = [];
    const issues: ParseIssue[] = [];
    const lines = f.text.replace(/\n$/, "").split("\n");
    lines.forEach((line, i) => parser.line(line, i + 1, events, issues));
    parser.end(events, issues);
    const ts = events.map((e) => e.tsUs);
    const id = Number(
      insertSource.run(f.path, f.host ?? null, f.role ?? null, createHash("sha256").update(f.text).digest("hex"), Buffer.byteLength(f.text), lines.length,
        events.length, events.filter((e) => e.kind === "log.unparsed").length, JSON.stringify(issues), Math.min(...ts), Math.max(...ts), new Date().toISOString())
        .lastInsertRowid,
    );
    for (const ev of events) all.push({ ev, sourceId: id, order: all.length });
  }
  all.sort((a, b) => a.ev.tsUs - b.ev.tsUs || a.order - b.order);
  const insertEvent = db.prepare(
    "INSERT INTO events (seq, ts_us, source_id, line, host, role, dp, pp, tp, kind, room, rid, chunk, layer, page_lo, page_hi, state, attrs, text) " +
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
  );
  db.transaction(() => {
    all.forEach(({ ev, sourceId }, i) =>
      insertEvent.run(i + 1, ev.tsUs, sourceId, ev.line, ev.host ?? null, ev.role ?? null, ev.dp ?? null, ev.pp ?? null, ev.tp ?? null, ev.kind,
        ev.room ?? null, ev.rid ?? null, ev.chunk ?? null, ev.layer ?? null, ev.pageLo ?? null, ev.pageHi ?? null, ev.state ?? null,
        ev.attrs === undefined ? null : JSON.stringify(ev.attrs), ev.text),
    );
  })();
  return db;
}
