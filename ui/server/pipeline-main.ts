// Child process entry of a background job (see pipeline.ts): reads its input
// from argv, reports progress and the outcome to the server over IPC.

import { runPipeline, type PipelineInput, type PipelineMessage } from "./pipeline.js";

const send = (msg: PipelineMessage) => process.send!(msg);
const input = JSON.parse(process.argv[2] ?? "{}") as PipelineInput;
runPipeline(input, send)
  .then((warnings) => send({ type: "done", warnings }))
  .catch((err: unknown) => send({ type: "error", message: err instanceof Error ? err.message : String(err) }))
  .finally(() => process.disconnect());
