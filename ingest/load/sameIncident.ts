// Guards against mixing incidents (DESIGN.md "CLI": `ingest … [--append]`):
// a second ingest into a database that already holds an incident must be of
// the same incident. Logs read in another zone (--tz), or spanning a time far
// from the incident's, are refused with what differs, unless `--append` says
// they belong together.

import { InputError } from "../inputs/pathIdentity.js";
import { isoFromUs } from "../../domain/timeFormat.js";
import type { IngestSettings } from "../../store/writer.js";
import type { TimeSpan } from "../sources/timeHints.js";


/** New sources this far from the incident's span are taken for another incident. */
export const MAX_GAP_US = 6 * 3_600_000_000;

export interface IncidentSoFar {
  db: string;
  hasEvents: boolean;
  /** Null for an incident written before the settings were recorded. */
  settings: IngestSettings | null;
  span: TimeSpan | null;
}

function spanText(s: TimeSpan): string {
  return `${isoFromUs(s.firstUs)} .. ${isoFromUs(s.lastUs)}`;
}

export function assertSameIncident(incident: IncidentSoFar, requested: IngestSettings, newSpan: TimeSpan | null, append: boolean): void {
  if (!incident.hasEvents || append) return;
  const advice = "ingest them into a database of their own, or pass --append if they belong to this incident";
  if (incident.settings !== null && incident.settings.tz !== requested.tz) {
    throw new InputError(
      `${incident.db}: this incident's logs were read in zone ${incident.settings.tz}, these would be read in ${requested.tz}; ${advice}`,
    );
  }
  if (incident.span === null || newSpan === null) return;
  const gap = Math.max(newSpan.firstUs - incident.span.lastUs, incident.span.firstUs - newSpan.lastUs);
  if (gap > MAX_GAP_US) {
    const hours = Math.round(gap / 3_600_000_000);
    throw new InputError(
      `${incident.db}: the incident spans ${spanText(incident.span)}; the new sources span ${spanText(newSpan)}, ` +
        `${hours} h away — a different incident? ${advice[0]!.toUpperCase()}${advice.slice(1)}`,
    );
  }
}
