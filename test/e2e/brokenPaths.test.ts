// Paths that used to break in the page (issue 13 "Broken"), in Chromium:
// - a finding whose witnesses lie minutes apart (the NIXL wedge's
//   unhandled-abort: the ABORT frame at 14:42:35, the first re-sent room's
//   timeout 300 s later, fixtures/README.md) must show every witness and the
//   cursor, although the padded span is longer than the incident;
// - a finding about a room with an abort (the Mooncake stale-slot-reuse
//   bundle: the room's decode side aborts and frees its pages, §7.2) loads the
//   room's flow and draws its arrows, with no error in the page.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { FIXTURES, fixtureTarGz, getJson, tarGz, uploadFiles, waitForIncident, type TestServer } from "../ui/serverHarness.js";
import { FLOW_RGB, waitForCanvasColour, openPage, screenshot, serverAndBrowser, timelineSettled, waitForCursor } from "./browserHarness.js";

const env = serverAndBrowser();

async function upload(server: TestServer, id: string): Promise<void> {
  const up = await uploadFiles(server, [{ name: `${id}.tar.gz`, content: await fixtureTarGz(id) }]);
  assert.equal(up.status, 202, JSON.stringify(up.body));
  assert.equal((await waitForIncident(server, id))["status"], "ready");
}

interface Finding {
  id: string;
  rule: string;
  verdict: string;
  body: { room?: string; rooms?: string[] };
  placed: { seq: number; tsUs: number }[];
}

/** The wedge bundle from 14:42:30 on: its records before then are left out (a capture that starts late). */
async function lateCapture(): Promise<Buffer> {
  const dir = join(FIXTURES, "nixl-abort-wedge");
  const from = Date.UTC(2026, 5, 23, 14, 42, 30) / 1000;
  const stamp = (line: string): number | undefined => {
    const log = /^\[(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d)/.exec(line);
    if (log) return Date.parse(`${log[1]}T${log[2]}Z`) / 1000;
    const probe = /"ts": ([\d.]+)/.exec(line);
    return probe ? Number(probe[1]) : undefined;
  };
  const files = readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile() && d.name !== "expected.json")
    .map((d) => relative(dir, join(d.parentPath, d.name)).split(sep).join("/"));
  return tarGz(
    files.map((name) => {
      let keep = false;
      // A line without a time (a traceback's continuation) goes with the record above it.
      const lines = readFileSync(join(dir, name), "utf8").split("\n").filter((l) => (keep = (stamp(l) ?? (keep ? from : 0)) >= from));
      return { name, content: `${lines.join("\n")}\n` };
    }),
  );
}

test("a finding whose witnesses are minutes apart shows all of them and the cursor", async () => {
  const id = "late-capture";
  const up = await uploadFiles(env.server, [{ name: `${id}.tar.gz`, content: await lateCapture() }]);
  assert.equal(up.status, 202, JSON.stringify(up.body));
  assert.equal((await waitForIncident(env.server, id))["status"], "ready");
  const { findings } = (await getJson(env.server, `/api/incidents/${id}/findings`)).body as { findings: Finding[] };
  const f = findings.find((x) => x.rule === "unhandled-abort" && x.verdict === "violated")!;
  const times = f.placed.map((w) => w.tsUs);
  const lanes = (await getJson(env.server, `/api/incidents/${id}/lanes`)).body as { firstTsUs: number; lastTsUs: number };
  assert.ok((Math.max(...times) - Math.min(...times)) * 1.3 > lanes.lastTsUs - lanes.firstTsUs, "the padded witness span is longer than the incident");

  const { page, errors } = await openPage(env.browser, `${env.server.url}?incident=${id}`);
  await timelineSettled(page);
  await page.locator(`.findings li.finding[data-finding="${f.id}"] .finding-head`).click();
  const cursor = await waitForCursor(page);
  await timelineSettled(page);
  const from = Number(await page.locator(".timeline").getAttribute("data-from"));
  const to = Number(await page.locator(".timeline").getAttribute("data-to"));
  for (const t of times) assert.ok(t >= from && t <= to, `witness at ${t} inside the window [${from}, ${to}]`);
  const latest = f.placed.reduce((a, b) => (b.seq > a.seq ? b : a));
  assert.equal(cursor, latest.seq, "the cursor is on the latest witness");
  assert.ok(latest.tsUs >= from && latest.tsUs <= to, "the cursor is inside the window");
  await screenshot(page, "far-apart-witnesses");
  assert.deepEqual(errors, []);
});

test("a finding about an aborted room loads the room's flow and draws it, with no error", async () => {
  const id = "stale-slot-reuse";
  await upload(env.server, id);
  const { findings } = (await getJson(env.server, `/api/incidents/${id}/findings`)).body as { findings: Finding[] };
  // 3316900739918585146 times out on d1 and is aborted (d1/decode-tp0.log:124, "Sent abort notification").
  const room = "3316900739918585146";
  const f = findings.find((x) => x.rule === "transfer-stall" && (x.body.rooms ?? [x.body.room]).includes(room));
  assert.ok(f, "a transfer-stall finding names the aborted room");
  const { page, errors } = await openPage(env.browser, `${env.server.url}?incident=${id}`);
  await timelineSettled(page);
  // The room is one of a grouped finding's rooms: open the group, then the room.
  const group = page.locator(`.findings li.finding[data-finding="${f.id}"]`);
  await group.locator(".finding-head").click();
  const flowAnswered = page.waitForResponse((r) => r.url().includes(`/flow?room=${room}`));
  await group.locator(`.group-rooms button.room[data-room="${room}"]`).click();
  assert.equal((await flowAnswered).status(), 200);
  await waitForCursor(page);
  await timelineSettled(page);
  await waitForCanvasColour(page, FLOW_RGB);
  assert.doesNotMatch((await page.locator(".event-panel").textContent())!, /internal error/);
  await screenshot(page, "aborted-room-flow");
  assert.deepEqual(errors, []);
});
