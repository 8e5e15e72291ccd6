// Uploads as people make bundles, and malformed ones, against a real server:
// - `tar -czf bundle.tgz -C dir .` (GNU tar roots every entry at `./`);
// - a .zip, and an archive of per-host archives (one level deep is unpacked
//   into a folder named after each; a level more is not, and the incident says so);
// - two files named probe.jsonl chosen one by one (no folders): both are kept;
// - a form without a boundary, one cut short, a NUL in a file name: 400s;
// - an archive whose names collide with a folder: a 400 that names no server path.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import yazl from "yazl";
import { withoutServerPaths } from "../../ui/server/errors.js";
import { getJson, startTestServer, tarGz, uploadFiles, waitForIncident, type TestServer } from "./serverHarness.js";
import { scratchDir } from "../scratchDir.js";

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(async () => {
  await server?.close();
});

const decodeLine = (tp: number, i: number) =>
  `[2026-08-20 10:15:${String(30 + i).padStart(2, "0")}.000 DP0 TP${tp}] Decode batch, #running-req: ${i}, #token: 181234, token usage: 0.43, pre-allocated usage: 0.06, #prealloc-req: 3, #transfer-req: 9, #retracted-req: 0, cuda graph: True, gen throughput (token/s): 3712.55, #queue-req: 0\n`;
const prefillLine = (tp: number, i: number) =>
  `[2026-08-20 10:15:${String(30 + i).padStart(2, "0")}.500 TP${tp}] Prefill batch, #new-seq: 1, #new-token: 4096, #cached-token: 0, token usage: 0.22, #running-req: 4, #queue-req: 4, #pending-token: 0, #bootstrap-req: 6, #inflight-req: 12, #optimistic-req: 0, cuda graph: False, input throughput (token/s): 40100.00\n`;
const probeLine = (host: string, role: string, i: number) =>
  `{"ts": 1787221${String(530 + i)}.000000, "host": "${host}", "role": "${role}", "tp": 0, "ev": "sched.iter", "iter": ${i}, "branch": "run_batch"}\n`;

async function zipOf(files: Record<string, string | Buffer>): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const [name, content] of Object.entries(files)) zip.addBuffer(Buffer.from(content), name);
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream as AsyncIterable<Buffer>) chunks.push(c);
  return Buffer.concat(chunks);
}

type Source = { path: string; host: string | null; role: string | null; events: number };

async function readyIncident(id: string): Promise<{ incident: Record<string, unknown>; sources: Source[] }> {
  const incident = await waitForIncident(server, id);
  assert.equal(incident["status"], "ready", JSON.stringify(incident));
  const { body } = await getJson(server, `/api/incidents/${id}/sources`);
  return { incident, sources: (body["sources"] as Source[]).sort((a, b) => a.path.localeCompare(b.path)) };
}

const brief = (sources: Source[]) => sources.map((s) => [s.path, s.host, s.role, s.events]);

test("a .tgz made with `tar -C dir .` is accepted with its folders", async () => {
  const dir = scratchDir("kvrewind-dot-tar-");
  mkdirSync(join(dir, "bundle/d0"), { recursive: true });
  mkdirSync(join(dir, "bundle/p0"), { recursive: true });
  writeFileSync(join(dir, "bundle/d0/decode-tp0.log"), decodeLine(0, 0) + decodeLine(0, 1));
  writeFileSync(join(dir, "bundle/p0/prefill-tp0.log"), prefillLine(0, 0));
  execFileSync("tar", ["-czf", join(dir, "bundle.tar.gz"), "-C", join(dir, "bundle"), "."]);
  const up = await uploadFiles(server, [{ name: "bundle.tar.gz", content: readFileSync(join(dir, "bundle.tar.gz")) }], "?name=dot-tar");
  assert.equal(up.status, 202, JSON.stringify(up.body));
  const { sources } = await readyIncident("dot-tar");
  assert.deepEqual(brief(sources), [
    ["d0/decode-tp0.log", "d0", "decode", 2],
    ["p0/prefill-tp0.log", "p0", "prefill", 1],
  ]);
});

test("a .zip, and an archive of per-host archives: unpacked one level deep into folders named after them", async () => {
  const zip = await zipOf({ "d1/decode-tp3.log": decodeLine(3, 2) });
  assert.equal((await uploadFiles(server, [{ name: "d1.zip", content: zip }], "?name=zipped")).status, 202);
  assert.deepEqual(brief((await readyIncident("zipped")).sources), [["d1/decode-tp3.log", "d1", "decode", 1]]);

  const inner = await tarGz([{ name: "decode-tp5.log", content: decodeLine(5, 1) }]);
  const outer = await tarGz([
    { name: "hosts/p0.tar.gz", content: (await tarGz([{ name: "prefill-tp0.log", content: prefillLine(0, 3) }])) },
    { name: "hosts/d0.zip", content: (await zipOf({ "decode-tp0.log": decodeLine(0, 3) })) },
    { name: "deep/inner.tar.gz", content: (await tarGz([{ name: "twice.tar.gz", content: inner }])) },
  ]);
  const up = await uploadFiles(server, [{ name: "nested.tar.gz", content: outer }]);
  assert.equal(up.status, 202, JSON.stringify(up.body));
  const { incident, sources } = await readyIncident("nested");
  assert.deepEqual(brief(sources), [
    ["hosts/d0/decode-tp0.log", "d0", "decode", 1],
    ["hosts/p0/prefill-tp0.log", "p0", "prefill", 1],
  ]);
  assert.deepEqual(incident["warnings"], [
    "nested.tar.gz:deep/inner.tar.gz:twice.tar.gz: an archive inside 2 archives, not unpacked (archives nested 1 deep are)",
  ]);
});

test("two probe.jsonl chosen one by one are both kept, and the incident says how; with their folders, as they are", async () => {
  const flat = await uploadFiles(
    server,
    [
      { name: "probe.jsonl", content: probeLine("p0", "prefill", 0) },
      { name: "probe.jsonl", content: probeLine("d0", "decode", 1) },
    ],
    "?name=two-probes",
  );
  assert.equal(flat.status, 202, JSON.stringify(flat.body));
  const { incident, sources } = await readyIncident("two-probes");
  assert.deepEqual(brief(sources), [
    ["probe.jsonl", "p0", "prefill", 1],
    ["probe~2.jsonl", "d0", "decode", 1],
  ]);
  assert.match(String((incident["warnings"] as string[])[0]), /^two files named 'probe\.jsonl' in the upload: the later one is kept as 'probe~2\.jsonl' \(files chosen one by one lose their folders/);

  const folders = await uploadFiles(
    server,
    [
      { name: "p0/probe.jsonl", content: probeLine("p0", "prefill", 2) },
      { name: "d0/probe.jsonl", content: probeLine("d0", "decode", 3) },
    ],
    "?name=folders",
  );
  assert.equal(folders.status, 202);
  const kept = await readyIncident("folders");
  assert.deepEqual(kept.sources.map((s) => s.path), ["d0/probe.jsonl", "p0/probe.jsonl"]);
  assert.equal(kept.incident["warnings"], undefined);
});

/** A raw POST to the upload route, for bodies no FormData would build. */
function rawUpload(contentType: string, body: Buffer): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(new URL("api/incidents", server.url), { method: "POST", headers: { "content-type": contentType, "content-length": body.length } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString()) as Record<string, unknown> }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

const part = (name: string, content: string) =>
  `--XB\r\nContent-Disposition: form-data; name="files"; filename="${name}"\r\nContent-Type: application/octet-stream\r\n\r\n${content}\r\n`;

test("malformed forms are 400s with a message, and leave nothing behind", async () => {
  const incidentsBefore = readdirSync(join(server.dataDir, "incidents")).sort();
  const noBoundary = await rawUpload("multipart/form-data", Buffer.from(part("a.log", decodeLine(0, 0))));
  assert.equal(noBoundary.status, 400, JSON.stringify(noBoundary.body));
  assert.match(String(noBoundary.body["error"]), /^the upload is not a well-formed multipart form: /);

  const whole = `${part("a.log", decodeLine(0, 0))}--XB--\r\n`;
  const cut = await rawUpload("multipart/form-data; boundary=XB", Buffer.from(whole.slice(0, whole.length - 60)));
  assert.equal(cut.status, 400, JSON.stringify(cut.body));
  assert.match(String(cut.body["error"]), /^the upload is not a well-formed multipart form: /);

  const nul = await rawUpload("multipart/form-data; boundary=XB", Buffer.from(`${part("p0/a\u0000b.log", decodeLine(0, 0))}--XB--\r\n`));
  assert.equal(nul.status, 400, JSON.stringify(nul.body));
  assert.equal(nul.body["error"], "the upload is not a well-formed multipart form: Malformed part header");
  // The same NUL written as RFC 5987 percent-encoding reaches the name check.
  const encoded = `--XB\r\nContent-Disposition: form-data; name="files"; filename*=utf-8''p0%2Fa%00b.log\r\n\r\n${decodeLine(0, 0)}\r\n--XB--\r\n`;
  const nulName = await rawUpload("multipart/form-data; boundary=XB", Buffer.from(encoded));
  assert.equal(nulName.status, 400, JSON.stringify(nulName.body));
  assert.match(String(nulName.body["error"]), /^file name 'p0\/a\u0000b\.log' refused: contains a NUL byte$/);
  assert.deepEqual(readdirSync(join(server.dataDir, "incidents")).sort(), incidentsBefore);
});

test("names that collide with a folder are refused without naming a server path", async () => {
  const archive = await tarGz([
    { name: "p0", content: "a file where a folder will be needed\n" },
    { name: "p0/prefill-tp0.log", content: prefillLine(0, 0) },
  ]);
  const tarred = await uploadFiles(server, [{ name: "clash.tar.gz", content: archive }]);
  assert.equal(tarred.status, 400, JSON.stringify(tarred.body));
  assert.equal(tarred.body["error"], "entry of 'clash.tar.gz' 'p0/prefill-tp0.log' refused: 'p0' is a file of the upload, not a folder");
  const form = await uploadFiles(server, [
    { name: "d0", content: "x\n" },
    { name: "d0/decode-tp0.log", content: decodeLine(0, 0) },
  ]);
  assert.equal(form.status, 400, JSON.stringify(form.body));
  for (const r of [tarred, form]) {
    assert.doesNotMatch(String(r.body["error"]), new RegExp(server.dataDir.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")));
    assert.doesNotMatch(String(r.body["error"]), /staging|upload-/);
  }
  // gzip of no tar is not an archive: kept as the file it is (ingest unpacks it).
  const gz = await uploadFiles(server, [{ name: "d0/decode-tp1.log.gz", content: gzipSync(decodeLine(1, 0)) }], "?name=gz");
  assert.equal(gz.status, 202);
  assert.deepEqual(brief((await readyIncident("gz")).sources), [["d0/decode-tp1.log.gz", "d0", "decode", 1]]);
});

test("a message that reaches a client loses the server's paths", () => {
  const dataDir = "/srv/kvrewind data";
  assert.equal(
    withoutServerPaths(`EEXIST: file already exists, mkdir '${dataDir}/staging/upload-Ab3x/input/p0'`, dataDir),
    "EEXIST: file already exists, mkdir 'p0'",
  );
  assert.equal(withoutServerPaths(`${dataDir}/incidents/x/incident.db: schema version 9`, dataDir), "incidents/x/incident.db: schema version 9");
});

test("an empty .tar.gz is said to be empty, not binary; the incident fails naming it", async () => {
  const up = await uploadFiles(server, [{ name: "nothing.tar.gz", content: await tarGz([]) }]);
  assert.equal(up.status, 202, "the archive is read by the ingest, which judges it");
  const incident = await waitForIncident(server, (up.body["incident"] as { id: string }).id);
  assert.equal(incident["status"], "failed");
  const said = `${String(incident["error"])} ${JSON.stringify(incident["warnings"] ?? [])}`;
  assert.match(said, /nothing\.tar\.gz/);
  assert.match(said, /empty/);
  assert.doesNotMatch(said, /binary|NUL/);
});
