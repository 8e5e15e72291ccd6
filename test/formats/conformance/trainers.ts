// The RL trainers' own prints around their rollout engines: Hydra's hint after a driver's traceback
// (ingest/formats/templates/platform/hydra.ts, hydra/_internal/utils.py run_and_report) and verl's console
// metrics line (ingest/formats/templates/platform/verl.ts, verl/utils/logger/aggregate_logger.py
// concat_dict_to_str). Both information, written by hand from the format strings.

import { LogKind } from "../../../domain/kinds.js";
import type { EngineConformanceRow } from "./row.js";

export const HYDRA_ROWS: EngineConformanceRow[] = [
  { template: "hydra.full_error_hint", expect: { kind: LogKind.message, attrs: { level: "info", launcher: "hydra" } } },
];

export const VERL_ROWS: EngineConformanceRow[] = [
  { template: "verl.step_metrics", expect: { kind: LogKind.message, attrs: { level: "info", trainer: "verl", step: 0 } } },
  { template: "verl.step_metrics", sample: 1, expect: { kind: LogKind.message, attrs: { level: "info", trainer: "verl", step: 1 } } },
];
