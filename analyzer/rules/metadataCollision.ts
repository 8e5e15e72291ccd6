// metadata-collision: decode committed a transfer whose metadata buffer held
// another room's metadata. SGLang itself detects it in `_commit_transfer_to_req`
// and logs `Context corruption detected: Request {rid} (bootstrap_room={exp})
// received metadata from bootstrap_room={act}. Metadata buffer index: {idx}.`
// (sglang-pd-logs-and-protocol.md §3.4).

import { LogKind } from "../../ingest/event.js";
import type { StoredEvent } from "../../ingest/store/queries.js";
import { attrString, type Evidence } from "./evidence.js";
import { consistent, undetermined, type DraftFinding, type Rule, type RuleResult } from "./rule.js";

export const metadataCollision: Rule = {
  id: "metadata-collision",
  needs: ["decode scheduler logs (the `Context corruption detected` line, §3.4)"],
  run({ evidence }): RuleResult {
    const decodeLogs = evidence.sources().filter((s) => s.format === "sglang-log" && s.role === "decode");
    if (decodeLogs.length === 0) {
      return undetermined(
        "metadata-collision",
        "No decode scheduler log: metadata-buffer collisions cannot be checked",
        ["decode SGLang scheduler logs"],
        "SGLang reports a metadata buffer index collision only in the decode scheduler's log (§3.4); the incident has none.",
      );
    }
    const lines = evidence.of(LogKind.contextCorruption);
    const decodeRooms = evidence.roomCount("decode");
    if (lines.length === 0) {
      return consistent(
        "metadata-collision",
        `No metadata-buffer collision among ${decodeRooms} decode rooms`,
        `Decode logs from ${decodeLogs.length} source(s) cover ${decodeRooms} rooms and contain no \`Context corruption detected\` line.`,
        decodeRooms,
      );
    }
    return { checked: decodeRooms, findings: lines.map((ev) => collisionFinding(evidence, ev)) };
  },
};

function collisionFinding(evidence: Evidence, ev: StoredEvent): DraftFinding {
  const expected = ev.room ?? "?";
  const actual = attrString(ev, "actualRoom") ?? "?";
  const index = attrString(ev, "metadataBufferIndex") ?? "?";
  const other = actual === "?" ? undefined : lastDecodeEventOfRoom(evidence, actual, ev.seq);
  const otherPart = other
    ? ` Room ${actual} was last seen on decode at ${evidence.where(other)}, so two live requests were given index ${index}.`
    : ` No earlier decode record of room ${actual} is in the incident.`;
  return {
    rule: "metadata-collision",
    severity: "high",
    verdict: "violated",
    title: `Room ${expected} received room ${actual}'s metadata (buffer index ${index})`,
    ...(expected !== "?" && { room: expected }),
    ranks: [evidence.rank(ev)],
    tsUs: ev.tsUs,
    witness: other ? [ev, other] : [ev],
    explanation:
      `Let request ${ev.rid ?? "?"} of room ${expected} be committed from metadata buffer index ${index} (${evidence.where(ev)}). ` +
      `Then that buffer must hold room ${expected}'s metadata, since decode checks the stored bootstrap_room before it appends the first token (§3.4 _commit_transfer_to_req), ` +
      `but it held room ${actual}'s.${otherPart}`,
    falsify: "Rerun the same workload with metadata-buffer allocation logged per room; a collision needs two live rooms with the same index.",
    facts: { expected, actual, index },
  };
}

function lastDecodeEventOfRoom(evidence: Evidence, room: string, beforeSeq: number): StoredEvent | undefined {
  const raw = evidence.db
    .prepare("SELECT seq FROM events WHERE room = ? AND seq < ? AND role = 'decode' ORDER BY seq DESC LIMIT 1")
    .get(room, beforeSeq) as { seq: number } | undefined;
  return raw ? evidence.event(raw.seq) : undefined;
}
