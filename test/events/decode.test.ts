// The typed decode layer over real events: every kind of the catalogue is
// decoded from events the real ingest made of realistic lines (the
// conformance table's lines, docs/log-templates.md) and of the fixture
// bundles (probe records, checksum dumps, Flight Recorder dumps, trace files, crash dumps).

import { test } from "node:test";
import assert from "node:assert/strict";
import { decodeEvent, kindCatalogue, KINDS, type DomainEvent } from "../../analyzer/events/index.js";
import { type StoredEvent } from "../../domain/event.js";
import { ChecksumKind, LogKind } from "../../domain/kinds.js";
import { PAGE_DUMP_KIND } from "../../domain/kinds.js";
import { openIncident } from "../../store/db.js";
import { iterateEvents } from "../../store/read/events.js";
import { ROOM, rowLine } from "../formats/conformance/row.js";
import { TEMPLATES } from "../../ingest/formats/templates/index.js";
import { SGLANG_PD_ROWS } from "../formats/conformance/sglangPd.js";
import { SGLANG_BOOTSTRAP_ROWS, SGLANG_SCHEDULER_ROWS } from "../formats/conformance/sglangScheduler.js";
import { SGLANG_TRANSFER_ROWS } from "../formats/conformance/sglangTransfer.js";
import { buildIncident } from "../rules/incidentBuilder.js";
import { bundleInputs, fixtureInputs, ingestedIncident } from "../sharedIncident.js";

const SGLANG_ROWS = [...SGLANG_PD_ROWS, ...SGLANG_TRANSFER_ROWS, ...SGLANG_BOOTSTRAP_ROWS, ...SGLANG_SCHEDULER_ROWS];
const INCIDENTS = [
  ...["stale-slot-reuse", "hicache-indexk-race", "overlap-desync"].map(fixtureInputs),
  ...["abort-attribution", "k8s-mooncake-pod-logs", "nccl-watchdog", "page-dumps", "metrics-wedge", "traces-wedge", "node-oom-kill"].map(bundleInputs),
];

async function storedEvents(): Promise<StoredEvent[]> {
  // Every sample of the template table (C++ engines included) and the tracebacks of the rows that continue one.
  const lines = [
    ...TEMPLATES.flatMap((t) => t.samples),
    ...SGLANG_ROWS.flatMap((r) => (r.more !== undefined ? [rowLine(r), ...r.more] : [])),
  ];
  const rows = await buildIncident([{ path: "d0/decode-tp3.log", text: lines.join("\n") + "\n" }]);
  const events = [...iterateEvents(rows)];
  rows.close();
  for (const inputs of INCIDENTS) {
    const db = openIncident(await ingestedIncident(inputs), { readonly: true });
    events.push(...iterateEvents(db));
    db.close();
  }
  return events;
}

const events = storedEvents();

test("every kind of the catalogue decodes from real events, as itself, with fields of the catalogue's types", async () => {
  const all = await events;
  const catalogue = kindCatalogue();
  const seen = new Set<string>();
  for (const stored of all) {
    const ev = decodeEvent(stored);
    assert.equal(ev.kind, stored.kind, `seq ${stored.seq} of kind ${stored.kind} is known`);
    assert.equal(ev.seq, stored.seq);
    assert.equal(ev.text, stored.text);
    seen.add(ev.kind);
    for (const [name, field] of Object.entries(catalogue.kinds[ev.kind]!.fields)) {
      const value = (ev as unknown as Record<string, unknown>)[name];
      if (value === undefined) {
        assert.ok(field.optional, `${ev.kind}.${name} is always there`);
        continue;
      }
      assert.ok(typeMatches(field.type, value, field.values), `${ev.kind}.${name} = ${JSON.stringify(value)} is a ${field.type}`);
    }
  }
  assert.deepEqual(Object.keys(KINDS).filter((k) => !seen.has(k)), [], "every catalogue kind was produced");
  const release = all.map(decodeEvent).find((e) => e.kind === LogKind.deferredRelease);
  assert.ok(release?.kind === LogKind.deferredRelease);
  assert.deepEqual([release.room, release.outcome, release.timeoutS], [ROOM, "timed_out", 30]);
});

function typeMatches(type: string, value: unknown, values?: readonly string[]): boolean {
  switch (type) {
    case "string":
    case "room":
      return typeof value === "string" && (type !== "room" || /^\d+$/.test(value));
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "boolean":
      return typeof value === "boolean";
    case "kvpoll":
      return typeof value === "number" && value >= 0 && value <= 4;
    case "pages":
      return Array.isArray(value) && value.every((r) => Array.isArray(r) && r.length === 2 && r.every((n) => typeof n === "number"));
    case "record":
      return value !== null && typeof value === "object" && !Array.isArray(value);
    case "json":
      return true;
    default:
      return values !== undefined && values.includes(value as string);
  }
}

test("every LogKind the log parsers emit, checksum, page dumps, and the probe names are in the catalogue", () => {
  for (const kind of [...Object.values(LogKind), ChecksumKind, PAGE_DUMP_KIND]) assert.ok(kind in KINDS, kind);
  const probe = ["req.arrive", "req.finish", "req.abort", "kv.alloc", "kv.free", "kv.meta", "kv.post", "kv.done", "kv.notify", "kv.poll", "kv.timeout", "boot.msg", "boot.exit", "hicache.load", "hicache.layer", "hicache.wait", "kernel.store", "kernel.read", "sched.iter", "coll.enter", "coll.exit", "config"];
  for (const kind of probe) assert.ok(kind in KINDS, kind);
});

test("a decode timeout line decodes to one reading: decode side, timed out in WaitingForInput after 300 s, the 19-digit room exact", async () => {
  const all = await events;
  const stored = all.find((e) => e.kind === LogKind.transferFailed && e.room === ROOM && e.text.includes("timed out after 300.0s"))!;
  const ev = decodeEvent(stored);
  assert.equal(ev.kind, LogKind.transferFailed);
  if (ev.kind !== LogKind.transferFailed) return;
  assert.equal(ev.room, "6555093254675405189");
  assert.equal(ev.errorRoom, "6555093254675405189");
  assert.equal(ev.side, "decode");
  assert.equal(ev.reasonKind, "timeout");
  assert.equal(ev.timedOut, true);
  assert.equal(ev.timeoutState, "WaitingForInput");
  assert.equal(ev.timeoutPoll, 2);
  assert.equal(ev.timeoutS, 300);
  assert.equal(ev.state, 0);
  assert.equal(ev.tp, 3);
});

test("an abort failure line is not a timeout; a prefill failure line is the prefill side", async () => {
  const failures = (await events).map(decodeEvent).filter((e): e is Extract<DomainEvent, { kind: "pd.transfer_failed" }> => e.kind === LogKind.transferFailed);
  const abort = failures.find((e) => e.reasonKind === "abort")!;
  assert.equal(abort.timedOut, false);
  assert.equal(abort.abortBy, "AbortReq");
  assert.ok(failures.some((e) => e.side === "prefill" && e.text.includes("Prefill transfer failed")));
});

test("a probe record's pages, chunk and flags are typed; a probe room of 19 digits stays exact", async () => {
  const post = (await events).map(decodeEvent).find((e) => e.kind === "kv.post" && e.room !== undefined && e.room.length === 19);
  assert.ok(post && post.kind === "kv.post");
  assert.equal(typeof post.last, "boolean");
  assert.equal(typeof post.chunk, "number");
  assert.ok(post.pages !== undefined && post.pages.length > 0 && post.pages[0]![1] > post.pages[0]![0]);
  assert.equal(post.room, /"room":\s*"?(\d+)/.exec(post.text)![1]);
});

test("a kind no catalogue entry names is an explicit other event, whole; a field of the wrong type is absent, not a crash", () => {
  const base: StoredEvent = {
    seq: 7, tsUs: 1_764_421_512_123_456, tsInferred: false, sourceId: 1, line: 3, host: "d0", role: "decode", dp: null, pp: null, tp: 2,
    kind: "my.custom", room: "8972542885242963296", rid: null, chunk: null, layer: null, pageLo: 4, pageHi: 9, state: null,
    attrs: { flavour: "x", n: 3 }, text: '{"ts": 1764421512.123456, "ev": "my.custom", "room": 8972542885242963296}',
  };
  const other = decodeEvent(base);
  assert.equal(other.kind, "other");
  if (other.kind !== "other") return;
  assert.equal(other.storedKind, "my.custom");
  assert.equal(other.room, "8972542885242963296");
  assert.deepEqual(other.attrs, { flavour: "x", n: 3 });
  assert.equal(other.pageLo, 4);
  const post = decodeEvent({ ...base, kind: "kv.post", chunk: 2, attrs: { last: "yes", queue: "3", bytes: { bad: 1 } } });
  assert.equal(post.kind, "kv.post");
  if (post.kind !== "kv.post") return;
  assert.equal(post.last, undefined);
  assert.equal(post.queue, 3);
  assert.equal(post.bytes, undefined);
  assert.deepEqual(post.pages, [[4, 9]]);
});

test("the catalogue is machine-readable JSON: kinds, fields, types, closed sets and the other member", () => {
  const catalogue = JSON.parse(JSON.stringify(kindCatalogue())) as ReturnType<typeof kindCatalogue>;
  assert.deepEqual(catalogue.kinds[LogKind.transferFailed]!.fields.side, { type: "side", optional: false, values: ["prefill", "decode"], derived: catalogue.kinds[LogKind.transferFailed]!.fields.side!.derived });
  assert.deepEqual(catalogue.kinds["kv.timeout"]!.fields.stateName, { type: "string", optional: true, from: ["state"] });
  assert.equal(catalogue.kinds.other!.fields.storedKind!.type, "string");
  assert.equal(catalogue.envelope.seq!.type, "number");
  assert.equal(catalogue.kinds["no.such.kind"], undefined);
});

test("the envelope's PP is every kind's, and a failure line's own `self.pp_rank=` is its ppRank", () => {
  const base: StoredEvent = {
    seq: 9, tsUs: 1_764_421_512_123_000, tsInferred: false, sourceId: 1, line: 12, host: "p0", role: "prefill", dp: null, pp: 1, tp: 3,
    kind: LogKind.notifSent, room: "8972542885242963296", rid: null, chunk: 0, layer: null, pageLo: null, pageHi: null, state: null,
    attrs: { peer: "d0-tp3", tag: "8972542885242963296_kv_0_1_11", tagKind: "kv", isLast: true, src: 11 },
    text: "[2026-11-29 13:05:12.123 PP1 TP3] sending kvcache to d0-tp3 with notif 8972542885242963296_kv_0_1_11",
  };
  assert.equal(decodeEvent(base).pp, 1, "a PP-tagged transfer line is PP1's");
  assert.equal(decodeEvent({ ...base, kind: "kv.post", attrs: null, pp: 0 }).pp, 0);
  assert.equal(decodeEvent({ ...base, pp: null }).pp, null);
  const failed = decodeEvent({
    ...base,
    kind: LogKind.transferFailed,
    attrs: { rank: 3, pp: 1, detail: "x" },
    text: "[2026-11-29 13:05:12.123 PP1 TP3] Prefill transfer failed for request rank=3 req.rid='r' req.bootstrap_room=8972542885242963296 self.pp_rank=1",
  });
  assert.equal(failed.kind, LogKind.transferFailed);
  if (failed.kind !== LogKind.transferFailed) return;
  assert.equal(failed.pp, 1);
  assert.equal(failed.ppRank, 1);
  assert.equal(decodeEvent({ ...base, kind: LogKind.transferFailed, pp: null, attrs: { rank: 3, pp: 0 } }).pp, null, "the envelope's, not the message's");
});
