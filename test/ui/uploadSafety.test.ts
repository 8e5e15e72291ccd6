// Uploads that must be refused, with a clear message and nothing left behind:
// path traversal in archives and form names, links, limits on size and count.

import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { getJson, startTestServer, tarGz, uploadFiles, waitForIncident, type TestServer } from "./serverHarness.js";

const LOG_LINE = "[2026-08-20 10:15:32 DP0 TP0] Prefill batch, #new-seq: 3, #new-token: 12288, #cached-token: 2048, token usage: 0.21, #running-req: 3, #queue-req: 5\n";

async function refused(server: TestServer, files: { name: string; content: string | Buffer }[]) {
  const before = readdirSync(join(server.dataDir, "incidents")).sort();
  const { status, body } = await uploadFiles(server, files);
  const after = readdirSync(join(server.dataDir, "incidents")).sort();
  assert.deepEqual(after, before, "a refused upload leaves no incident folder behind");
  assert.equal(typeof body["error"], "string");
  assert.doesNotMatch(String(body["error"]), /\n\s+at /, "no stack trace in the answer");
  return { status, error: String(body["error"]) };
}

test("archive entries that climb out with '..' are refused and nothing is written outside", async () => {
  const server = await startTestServer();
  try {
    const archive = await tarGz([
      { name: "p0/prefill-tp0.log", content: LOG_LINE },
      { name: "p0/../../escaped.log", content: LOG_LINE },
    ]);
    const { status, error } = await refused(server, [{ name: "bundle.tar.gz", content: archive }]);
    assert.equal(status, 400);
    assert.match(error, /'p0\/\.\.\/\.\.\/escaped\.log' refused: '\.\.' in the path/);
    assert.equal(existsSync(join(server.dataDir, "escaped.log")), false);
    assert.equal(existsSync(join(server.dataDir, "incidents", "escaped.log")), false);
  } finally {
    await server.close();
  }
});

test("absolute archive entries, symlinks and hard links are refused", async () => {
  const server = await startTestServer();
  try {
    const absolute = await refused(server, [{ name: "a.tar.gz", content: await tarGz([{ name: "/etc/cron.d/x", content: "x" }]) }]);
    assert.equal(absolute.status, 400);
    assert.match(absolute.error, /'\/etc\/cron\.d\/x' refused: absolute path/);

    const symlink = await refused(server, [{ name: "s.tar.gz", content: await tarGz([{ name: "link.log", type: "symlink", linkname: "/etc/passwd" }]) }]);
    assert.equal(symlink.status, 400);
    assert.match(symlink.error, /'link\.log' refused: a symlink, only regular files are accepted/);

    const hardlink = await refused(server, [{ name: "h.tar.gz", content: await tarGz([{ name: "hard.log", type: "link", linkname: "../x" }]) }]);
    assert.equal(hardlink.status, 400);
    assert.match(hardlink.error, /'hard\.log' refused: a link/);
  } finally {
    await server.close();
  }
});

test("form file names with '..' or an absolute path are refused", async () => {
  const server = await startTestServer();
  try {
    const up = await refused(server, [{ name: "../../outside.log", content: LOG_LINE }]);
    assert.equal(up.status, 400);
    assert.match(up.error, /file name '\.\.\/\.\.\/outside\.log' refused: '\.\.' in the path/);
    const abs = await refused(server, [{ name: "/tmp/abs.log", content: LOG_LINE }]);
    assert.equal(abs.status, 400);
    assert.match(abs.error, /refused: absolute path/);
  } finally {
    await server.close();
  }
});

test("size and file-count limits answer 413 with the limit in the message", async () => {
  const server = await startTestServer({ limits: { maxFileBytes: 1024, maxFiles: 3, maxExtractedBytes: 4096 } });
  try {
    const big = await refused(server, [{ name: "big.log", content: LOG_LINE.repeat(20) }]);
    assert.equal(big.status, 413);
    assert.equal(big.error, "a file is larger than the upload limit of 1.0 KiB");

    const many = await refused(
      server,
      ["a", "b", "c", "d"].map((n) => ({ name: `${n}.log`, content: LOG_LINE })),
    );
    assert.equal(many.status, 413);
    assert.equal(many.error, "too many files: at most 3 per upload");

    const manyInArchive = await refused(server, [
      { name: "m.tar.gz", content: await tarGz(["a", "b", "c", "d"].map((n) => ({ name: `${n}.log`, content: "x" }))) },
    ]);
    assert.equal(manyInArchive.status, 413);
    assert.equal(manyInArchive.error, "too many files: at most 3 per upload");

    // 10 KiB of log lines compress far below the 1 KiB upload limit but unpack past 4 KiB.
    const bomb = await refused(server, [{ name: "bomb.tar.gz", content: await tarGz([{ name: "big.log", content: LOG_LINE.repeat(80) }]) }]);
    assert.equal(bomb.status, 413);
    assert.equal(bomb.error, "archive 'bomb.tar.gz' unpacks to more than 4.0 KiB");
  } finally {
    await server.close();
  }
});

test("a compressed log the job unpacks past the limit is refused by name, and the rest of the upload is read", async () => {
  const server = await startTestServer({ limits: { maxExtractedBytes: 4096 } });
  try {
    const up = await uploadFiles(
      server,
      [
        { name: "p0/prefill-tp0.log", content: LOG_LINE.repeat(3) },
        // 10 KiB of log lines gzipped to a few hundred bytes: not an archive the server unpacks, so the job's ingest does, and stops at 4 KiB.
        { name: "p0/prefill-tp0.log.1.gz", content: gzipSync(LOG_LINE.repeat(80)) },
      ],
      "?name=gz-bomb",
    );
    assert.equal(up.status, 202, JSON.stringify(up.body));
    const incident = await waitForIncident(server, "gz-bomb");
    assert.equal(incident["status"], "ready", JSON.stringify(incident));
    assert.deepEqual(incident["warnings"], ["p0/prefill-tp0.log.1.gz: unpacks to more than 4.0 KiB, what the compressed files may unpack to together (a decompression bomb?); not ingested"]);
    assert.equal((incident["summary"] as { events: number }).events, 3);
  } finally {
    await server.close();
  }
});

test("the archives the server unpacked and the compressed files the job unpacks share the one limit", async () => {
  const server = await startTestServer({ limits: { maxExtractedBytes: 4096 } });
  try {
    // About 3 KiB from the archive, on upload, and 2 KiB from the .gz in the job: each under 4 KiB, together over it.
    const archive = await tarGz([{ name: "p0/prefill-tp0.log", content: LOG_LINE.repeat(18) }]);
    const up = await uploadFiles(
      server,
      [
        { name: "logs.tar.gz", content: archive },
        { name: "p0/prefill-tp0.log.1.gz", content: gzipSync(LOG_LINE.repeat(12)) },
      ],
      "?name=shared-limit",
    );
    assert.equal(up.status, 202, JSON.stringify(up.body));
    const incident = await waitForIncident(server, "shared-limit");
    assert.equal(incident["status"], "ready", JSON.stringify(incident));
    assert.equal(incident["unpackedBytes"], LOG_LINE.length * 18);
    assert.deepEqual(incident["warnings"], [
      "p0/prefill-tp0.log.1.gz: unpacks to more than 4.0 KiB, what the upload's archives and its compressed files may unpack to together (a decompression bomb?); not ingested",
    ]);
    assert.equal((incident["summary"] as { events: number }).events, 18, "the archive's lines are read");
  } finally {
    await server.close();
  }
});

test("an upload with no files, or a corrupt archive, is a 400 with a message", async () => {
  const server = await startTestServer();
  try {
    const none = await refused(server, []);
    assert.equal(none.status, 400);
    assert.equal(none.error, "the upload holds no files (form field 'files')");

    const archive = await tarGz([{ name: "p0/prefill-tp0.log", content: LOG_LINE.repeat(50) }]);
    const truncated = await refused(server, [{ name: "cut.tar.gz", content: archive.subarray(0, archive.length - 40) }]);
    assert.equal(truncated.status, 400);
    assert.match(truncated.error, /^archive 'cut\.tar\.gz' could not be read: /);
  } finally {
    await server.close();
  }
});

test("the server binds to loopback unless told otherwise, and unknown routes are JSON 404s", async () => {
  const server = await startTestServer();
  try {
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
    const missing = await getJson(server, "/api/nothing-here");
    assert.equal(missing.status, 404);
    assert.deepEqual(missing.body, { error: "no such API route" });
  } finally {
    await server.close();
  }
});
