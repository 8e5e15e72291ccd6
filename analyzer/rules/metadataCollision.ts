// metadata-collision: decode committed a transfer whose metadata buffer held
// another room's metadata. SGLang itself detects it in `_commit_transfer_to_req`
// and logs `Context corruption detected: Request {rid} (bootstrap_room={exp})
// received metadata from bootstrap_room={act}. Metadata buffer index: {idx}.`
// (docs/protocol.md §3.4).

import { LogKind } from "../../domain/kinds.js";
import { roomCountOfRoleReading } from "../../store/read/ranks.js";
import { lastRoomSeqOfRole } from "../../store/read/seqs.js";
import type { StoredEvent } from "../../store/read/events.js";
import { decodeAs } from "../events/decode.js";
import type { Evidence } from "./evidence.js";
import type { Violation } from "../model/api.js";
import { coverageOf, violationsOf } from "./replayEvidence.js";
import { mergeByMechanism } from "./grouping.js";
import { consistent, undetermined, type DraftFinding, type Rule, type RuleResult } from "./rule.js";

export const metadataCollision: Rule<number> = {
  id: "metadata-collision",
  needs: ["decode scheduler logs (the `Context corruption detected` line, docs/protocol.md §3.4)", "or probe kv.meta with aux_index (two live rooms given one buffer)"],
  // The decode rooms: how many the rule checked when it finds nothing.
  reading: () => roomCountOfRoleReading("decode"),
  run({ evidence, replay }, decodeRooms): RuleResult {
    const decodeLogs = evidence.sources().filter((s) => s.format === "sglang-log" && s.role === "decode");
    const probeChecked = coverageOf(replay, "metadata-collision")?.checked ?? 0;
    if (decodeLogs.length === 0 && probeChecked === 0) {
      return undetermined(
        "metadata-collision",
        "No decode scheduler log or metadata records: metadata-buffer collisions cannot be checked",
        ["decode SGLang scheduler logs", "probe kv.meta records with aux_index"],
        "SGLang reports a metadata buffer index collision only in the decode scheduler's log (docs/protocol.md §3.4), and no probe record names the buffer each room got.",
      );
    }
    const lines = evidence.of(LogKind.contextCorruption);
    // The model's own collisions from aux_index (a log line's collision is the rule's, above).
    const shared = violationsOf(replay, "metadata-collision").filter((v) => v.detail.auxIndex !== undefined && !lines.some((l) => l.room === v.room));
    const findings = [
      ...mergeByMechanism(lines.map((ev) => collisionFinding(evidence, ev)), () => "logged", (_, n) => `${n} rooms received another room's metadata (buffer index collision, logged by decode)`),
      ...mergeByMechanism(shared.map((v) => sharedBufferFinding(evidence, v)), () => "shared", (_, n) => `${n} rooms given a metadata buffer another live room still held`),
    ];
    if (findings.length > 0) return { checked: Math.max(decodeRooms, probeChecked), findings };
    return consistent(
      "metadata-collision",
      `No metadata-buffer collision among ${decodeRooms} decode rooms`,
      `Decode logs from ${decodeLogs.length} source(s) cover ${decodeRooms} rooms and contain no \`Context corruption detected\` line` +
        (probeChecked ? `; the model checked ${probeChecked} metadata buffer assignment(s) without two live rooms sharing one.` : "."),
      Math.max(decodeRooms, probeChecked),
    );
  },
};

/** Two live rooms of one decode rank given the same metadata buffer (the model's aux_index check). */
function sharedBufferFinding(evidence: Evidence, v: Violation): DraftFinding {
  const [holder, given] = v.witness.map((seq) => (seq >= 0 ? evidence.event(seq) : undefined));
  const other = String(v.detail.otherRoom ?? "?");
  return {
    rule: "metadata-collision",
    severity: "high",
    verdict: "violated",
    title: `Room ${v.room ?? "?"} given metadata buffer ${String(v.detail.auxIndex)} while room ${other} still holds it`,
    ...(v.room !== undefined && { room: v.room }),
    ranks: v.rank ? [v.rank] : [],
    tsUs: v.tsUs,
    witness: [holder, given].filter((e): e is StoredEvent => e !== undefined),
    explanation:
      `Let room ${other} hold metadata buffer ${String(v.detail.auxIndex)} on ${v.rank ?? "decode"} (${holder ? evidence.where(holder) : "no recorded line"}). ` +
      `Then no other room may get that buffer until ${other} is done or freed (its commit checks the stored bootstrap_room, docs/protocol.md §3.4), ` +
      `but room ${v.room ?? "?"} got it while ${other} was still live (${given ? evidence.where(given) : "no recorded line"}).`,
    falsify: "Rerun the same workload with metadata-buffer allocation logged per room; the two rooms must never hold one index at once.",
    facts: { expected: v.room, actual: other, index: v.detail.auxIndex },
  };
}

function collisionFinding(evidence: Evidence, ev: StoredEvent): DraftFinding {
  const line = decodeAs(ev, LogKind.contextCorruption)!;
  const expected = line.room ?? "?";
  const actual = line.actualRoom ?? "?";
  const index = line.metadataBufferIndex === undefined ? "?" : String(line.metadataBufferIndex);
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
      `Then that buffer must hold room ${expected}'s metadata, since decode checks the stored bootstrap_room before it appends the first token (docs/protocol.md §3.4 _commit_transfer_to_req), ` +
      `but it held room ${actual}'s.${otherPart}`,
    falsify: "Rerun the same workload with metadata-buffer allocation logged per room; a collision needs two live rooms with the same index.",
    facts: { expected, actual, index },
  };
}

function lastDecodeEventOfRoom(evidence: Evidence, room: string, beforeSeq: number): StoredEvent | undefined {
  const seq = lastRoomSeqOfRole(evidence.db, room, "decode", beforeSeq);
  return seq === undefined ? undefined : evidence.event(seq);
}
