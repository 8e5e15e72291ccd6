// How a worker thread ends: idle for a moment after its last piece of work,
// then by itself, never torn down by the main thread while it is hot.
//
// Why: Node 20 unregisters a worker's isolate from the platform before it
// disposes of it (src/node_worker.cc, ~WorkerThreadData: UnregisterIsolate,
// then Isolate::Dispose). A TurboFan job still compiling the worker's hot code
// in that window can start incremental marking, ask the platform for the
// unregistered isolate's task runner, and abort the whole process
// ("NodePlatform::ForIsolate … Assertion failed: (data.first) != nullptr",
// seen once in CI at the end of an ingest). Concurrent compile jobs are
// started only by running JavaScript, so a worker that has sat idle for
// longer than a compile takes has none left when its isolate goes.

/** How long a worker stays idle after its last message before it exits. */
const WORKER_SETTLE_MS = 300;

/**
 * Keeps the worker's event loop alive, idle, for WORKER_SETTLE_MS; when
 * nothing else holds it, the worker then exits on its own.
 */
export function settleThenExit(): void {
  setTimeout(() => undefined, WORKER_SETTLE_MS);
}
