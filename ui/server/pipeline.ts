// What the background worker is given and what it reports back.

export interface PipelineInput {
  dbPath: string;
  inputDir: string;
}

export type PipelineMessage =
  | { type: "progress"; phase: "ingest" | "analyze"; done: number; total: number }
  | { type: "done" }
  | { type: "error"; message: string };
