// The shapes of the server's JSON answers, as the page reads them
// (ui/server is their source of truth).

export type IncidentStatus = "receiving" | "queued" | "ingesting" | "analyzing" | "ready" | "failed";

export interface IncidentRecord {
  id: string;
  name: string;
  createdAt: string;
  status: IncidentStatus;
  error?: string;
  progress?: { phase: string; done: number; total: number };
  inputBytes: number;
  inputFiles: number;
  /** Inputs that were not ingested, with the reason. */
  warnings?: string[];
  summary?: {
    events: number;
    sources: number;
    ranks: string[];
    firstTsUs: number | null;
    lastTsUs: number | null;
    findings: Record<string, number>;
    topSuspect: { cause: string; confidence: number; summary: string } | null;
  };
}

export type Component = "scheduler" | "transfer" | "bootstrap" | "hicache" | "kernels" | "collectives" | "checksums" | "logs";

export interface Lane {
  id: number;
  host: string | null;
  role: string | null;
  dp: number | null;
  pp: number | null;
  tp: number | null;
  component: Component;
  group: string;
  rank: string;
  events: number;
}

export interface LanesAnswer {
  lanes: Lane[];
  kinds: string[];
  firstTsUs: number | null;
  lastTsUs: number | null;
  events: number;
}

export type { BucketColumns, EventColumns, WindowColumns } from "../wire.js";

export interface StoredEvent {
  seq: number;
  tsUs: number;
  sourceId: number;
  line: number;
  host: string | null;
  role: string | null;
  dp: number | null;
  pp: number | null;
  tp: number | null;
  kind: string;
  room: string | null;
  rid: string | null;
  chunk: number | null;
  layer: number | null;
  pageLo: number | null;
  pageHi: number | null;
  state: number | null;
  attrs: Record<string, unknown> | null;
  text: string;
}

export interface EventAnswer {
  event: StoredEvent;
  source: { path: string; format: string } | null;
  lane: number | null;
}

export interface PlacedWitness {
  seq: number;
  tsUs: number;
  lane: number;
}

export interface Finding {
  id: string;
  rule: string;
  severity: string;
  verdict: string;
  title: string;
  tsUs: number | null;
  body: {
    room?: string;
    ranks?: string[];
    explanation?: string;
    falsify?: string;
    witness?: { seq: number; source: string; line: number; text: string }[];
    [key: string]: unknown;
  };
  placed: PlacedWitness[];
}

export interface Suspect {
  rank: number;
  cause: string;
  confidence: number;
  body: { findings?: string[]; summary?: string; falsify?: string; [key: string]: unknown };
}

export interface FindingsAnswer {
  findings: Finding[];
  suspects: Suspect[];
}

export interface RoomFlow {
  room: string;
  events: { seq: number; tsUs: number; kind: string; step: string; lane: number | null }[];
  edges: { from: number; to: number; label: string }[];
  truncated: boolean;
}

/** analyzer/model/api.ts ModelStateView. */
export interface ModelState {
  atSeq: number;
  profile: Record<string, unknown>;
  rooms: {
    room: string;
    prefill: { state: number | null; ranks: string[]; chunksPosted: number; chunksDone: number; queue: number | null; changedAt: number | null };
    decode: { state: number | null; ranks: string[]; chunksNotified: number; auxReceived: boolean; pages: [number, number][]; changedAt: number | null };
  }[];
  pages: {
    /** The rank whose pool holds the page. */
    rank: string;
    buffer: string;
    /** -1: every layer. */
    layer: number;
    page: number;
    ownerRoom: string | null;
    lastWriter: { room: string; chunk: number | null; epoch: number; seq: number } | null;
    landed: boolean;
    changedAt: number;
  }[];
  queues: { rank: string; queue: number; depth: number; changedAt: number }[];
  bootstrapThreads: { rank: string; alive: boolean; changedAt: number | null; error?: string }[];
  hicacheSlots: { rank: string; slot: number; layersDone: number; layers: number; consumer: boolean; changedAt: number }[];
  collectives: { rank: string; group: string; seq: number; op: string; site: string; inside: boolean; changedAt: number }[];
}

export interface StateAnswer {
  atSeq: number;
  tsUs: number;
  kind: string;
  state: ModelState;
  /** The event behind each `changedAt` / last-writer seq in the state. */
  changes: Record<string, { source: string; line: number; kind: string }>;
}

export interface StepAnswer {
  seq: number | null;
  tsUs: number | null;
}
