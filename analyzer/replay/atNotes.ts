// What `replay --at` says besides the state: a point outside the incident, a
// room that appears nowhere, and why a room shows no state at that moment
// (not yet seen, retired after it settled, or no event the model follows).

import type { ModelStateView } from "../model/api.js";
import { ROOM_RETIRE_US } from "../model/index.js";
import type { IncidentDb } from "../../store/db.js";
import { incidentSpan, roomFirstRecord, roomLastRecord } from "../../store/read/seqs.js";
import { eventRef } from "./eventRefs.js";
import type { At } from "./timeTravel.js";

function iso(tsUs: number): string {
  return new Date(Math.floor(tsUs / 1000)).toISOString();
}

function where(db: IncidentDb, seq: number): string {
  const r = eventRef(db, seq);
  return r ? `seq ${seq}, ${iso(r.tsUs)}, ${r.source}:${r.line}` : `seq ${seq}`;
}

/** A room no event names is a usage error: the caller reports it and stops. */
export function unknownRoom(db: IncidentDb, room: string): string | undefined {
  return roomFirstRecord(db, room) ? undefined : `--room ${room}: no event of this incident names that room`;
}

/** Notes on the point and the room, in the order a reader needs them. */
export function atNotes(db: IncidentDb, at: At, seq: number | null, view: ModelStateView, room?: string): string[] {
  const span = incidentSpan(db);
  if (!span) return ["the incident holds no event"];
  const notes: string[] = [];
  const beforeStart = "seq" in at ? at.seq < span.firstSeq : at.tsUs < span.firstUs;
  const afterEnd = "seq" in at ? at.seq > span.lastSeq : at.tsUs > span.lastUs;
  if (beforeStart) notes.push(`--at is before the incident: its first event is ${where(db, span.firstSeq)}; the state shown is the empty one before it`);
  if (afterEnd) notes.push(`--at is after the incident: its last event is ${where(db, span.lastSeq)}; the state shown is the one after it`);
  if (room !== undefined && !view.rooms.some((r) => r.room === room)) notes.push(roomAbsence(db, room, seq));
  return notes;
}

function roomAbsence(db: IncidentDb, room: string, seq: number | null): string {
  const first = roomFirstRecord(db, room)!;
  const last = roomLastRecord(db, room)!;
  if (seq === null || first.seq > seq) return `room ${room} has no state yet: its first event is ${where(db, first.seq)}, after this point`;
  if (last.seq <= seq) {
    return `room ${room} has no state any more: its last event is ${where(db, last.seq)}; a room that has settled (every side Success or Failed, nothing in flight) leaves the state ${ROOM_RETIRE_US / 1e6} s after its last event`;
  }
  return `room ${room} has events before this point (the first: ${where(db, first.seq)}), but none the model follows (only log lines it does not replay) and no later line implies its state here`;
}
