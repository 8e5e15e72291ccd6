// The version signs an incident shows (logSigns.ts), as the profile choice
// and the rules read them: found once by the derive step after ingest and
// kept in meta for the events' fingerprint, so that readers only read. A
// file whose stored signs are missing or stale (events changed since, or
// another list of signs) has them looked for again, kept per connection and
// never written.

import type { IncidentDb } from "../../store/db.js";
import { getMetaJson, setMeta } from "../../store/db.js";
import { eventsFingerprint } from "./fingerprint.js";
import { findSigns, signsKey, type Sign } from "./logSigns.js";

const META_KEY = "profile_signs";

interface StoredSigns {
  key: string;
  fingerprint: string;
  signs: Sign[];
}

const found = new WeakMap<IncidentDb, StoredSigns>();

/** The incident's signs: stored by the derive step, else looked for (once per connection and events). */
export function profileSigns(db: IncidentDb): Sign[] {
  const key = signsKey();
  const fingerprint = eventsFingerprint(db);
  const current = (s: StoredSigns | undefined): s is StoredSigns => s !== undefined && s.key === key && s.fingerprint === fingerprint;
  const stored = getMetaJson<StoredSigns>(db, META_KEY);
  if (current(stored)) return stored.signs;
  const known = found.get(db);
  if (current(known)) return known.signs;
  const made = { key, fingerprint, signs: findSigns(db) };
  found.set(db, made);
  return made.signs;
}

/** True when the signs stored are those of the current events and list. */
export function storedSignsCurrent(db: IncidentDb): boolean {
  const stored = getMetaJson<StoredSigns>(db, META_KEY);
  return stored !== undefined && stored.key === signsKey() && stored.fingerprint === eventsFingerprint(db);
}

/** The derive step's part: looks for the signs and stores them for the current events. */
export function storeProfileSigns(db: IncidentDb): Sign[] {
  const made: StoredSigns = { key: signsKey(), fingerprint: eventsFingerprint(db), signs: findSigns(db) };
  setMeta(db, META_KEY, JSON.stringify(made));
  return made.signs;
}
