// The rows of the timeline: a header row per host/role group, a row per rank
// inside it, and a row per component lane inside an open rank. A header row
// shows the sum of the lanes below it, so a closed group still shows where its
// events are. A lane row with counter tracks is one track band taller per
// track, and draws the tracks instead of its marks.

import type { Component, Lane } from "./types.js";

export interface Row {
  key: string;
  depth: 0 | 1 | 2;
  label: string;
  /** The lanes whose events this row draws. */
  lanes: number[];
  component: Component | null;
  open: boolean;
  /** Counter track ids drawn in the row, one band each (LanesAnswer.counterTracks); only on a lane's own row. */
  tracks: number[];
  /** A rank row pinned to the top, out of its group (Perfetto's pinned tracks). */
  pinned?: boolean;
  /** Top edge and height, in content pixels. */
  y: number;
  h: number;
}

export const ROW_HEIGHT = [22, 17, 14] as const;
/** The height of one counter track's band. */
export const TRACK_HEIGHT = 30;

export const groupKey = (lane: Lane) => `g:${lane.group}`;
export const rankKey = (lane: Lane) => `r:${lane.group}|${lane.rank}`;

/** Groups start open and ranks closed; `toggled` holds the keys flipped from that. */
export function isOpen(key: string, toggled: ReadonlySet<string>): boolean {
  return key.startsWith("g:") !== toggled.has(key);
}

/**
 * Rows for the lanes that pass `shown` (the lane filters); a group or rank
 * with no lane shown has no row. `tracksOfLane`: the counter tracks of each
 * lane. The ranks of `pinned` (rank keys, in pin order) come first, each
 * named with its group, and leave their groups.
 */
export function layoutRows(
  allLanes: Lane[],
  toggled: ReadonlySet<string>,
  shown: (lane: Lane) => boolean = () => true,
  tracksOfLane: readonly (readonly number[])[] = [],
  pinned: readonly string[] = [],
): Row[] {
  const pins = new Set(pinned);
  const lanes = allLanes.filter((l) => shown(l) && !pins.has(rankKey(l)));
  const rows: Row[] = [];
  let y = 0;
  const push = (row: Omit<Row, "y" | "h" | "tracks">, tracks: readonly number[] = []) => {
    const h = Math.max(ROW_HEIGHT[row.depth], tracks.length * TRACK_HEIGHT);
    rows.push({ ...row, tracks: [...tracks], y, h });
    y += h;
  };
  const pushRank = (inRank: Lane[], label: string, pinnedRank: boolean) => {
    const rKey = rankKey(inRank[0]!);
    const rOpen = isOpen(rKey, toggled);
    push({ key: rKey, depth: 1, label, lanes: inRank.map((l) => l.id), component: null, open: rOpen, ...(pinnedRank && { pinned: true }) });
    if (!rOpen) return;
    for (const lane of inRank) {
      push({ key: `l:${lane.id}`, depth: 2, label: lane.component, lanes: [lane.id], component: lane.component, open: false }, tracksOfLane[lane.id]);
    }
  };
  for (const key of pinned) {
    const inRank = allLanes.filter((l) => shown(l) && rankKey(l) === key);
    if (inRank.length) pushRank(inRank, `${inRank[0]!.group} ${inRank[0]!.rank}`, true);
  }
  let i = 0;
  while (i < lanes.length) {
    const group = lanes[i]!.group;
    const inGroup: Lane[] = [];
    while (i < lanes.length && lanes[i]!.group === group) inGroup.push(lanes[i++]!);
    const gKey = groupKey(inGroup[0]!);
    const gOpen = isOpen(gKey, toggled);
    push({ key: gKey, depth: 0, label: group, lanes: inGroup.map((l) => l.id), component: null, open: gOpen });
    if (!gOpen) continue;
    let j = 0;
    while (j < inGroup.length) {
      const rank = inGroup[j]!.rank;
      const inRank: Lane[] = [];
      while (j < inGroup.length && inGroup[j]!.rank === rank) inRank.push(inGroup[j++]!);
      pushRank(inRank, rank, false);
    }
  }
  return rows;
}

/** For each lane, the rows that draw it, and the deepest of them (where a single event is shown). */
export interface RowIndex {
  rowsOfLane: number[][];
  deepestRowOfLane: Int32Array;
  height: number;
}

export function indexRows(rows: Row[], laneCount: number): RowIndex {
  const rowsOfLane: number[][] = Array.from({ length: laneCount }, () => []);
  const deepest = new Int32Array(laneCount).fill(-1);
  rows.forEach((row, r) => {
    for (const lane of row.lanes) {
      rowsOfLane[lane]!.push(r);
      deepest[lane] = r;
    }
  });
  const last = rows[rows.length - 1];
  return { rowsOfLane, deepestRowOfLane: deepest, height: last ? last.y + last.h : 0 };
}

/** The keys to toggle so that the lanes given are each shown on a row of their own. */
export function keysToReveal(lanes: Lane[], toggled: ReadonlySet<string>): string[] {
  const keys = new Set<string>();
  for (const lane of lanes) {
    if (!isOpen(groupKey(lane), toggled)) keys.add(groupKey(lane));
    if (!isOpen(rankKey(lane), toggled)) keys.add(rankKey(lane));
  }
  return [...keys];
}
