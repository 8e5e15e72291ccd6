// The data of clock alignment (DESIGN.md "Canonical store", Time): what the
// parse gathers per host (ingest/sources/clock.ts) and what the store keeps of it
// (store/anchors.ts, the meta table).

/** "all": every before precedes every after. "earliest": the earliest before precedes every after. */
export type Relation = "all" | "earliest";

/** Anchors aggregated per (key, domain): all the estimate needs. */
export interface AnchorAgg {
  key: string;
  rel: Relation;
  domain: string;
  minBefore: number | null;
  maxBefore: number | null;
  minAfter: number | null;
}

/** o[from] - o[to] <= c, the tightest of n causal pairs (store/anchors.ts). */
export interface UpperBound {
  from: string;
  to: string;
  c: number;
  n: number;
}

/** lo <= o[a] - o[b] <= hi, from `constraints` causal pairs. */
export interface PairBound {
  a: string;
  b: string;
  lo: number | null;
  hi: number | null;
  constraints: number;
}

export interface ClockAlignment {
  /** Microseconds added to each domain's raw times. */
  offsetsUs: Record<string, number>;
  /** False when the pairs contradict each other (no offsets satisfy them all). */
  consistent: boolean;
  pairs: PairBound[];
}
