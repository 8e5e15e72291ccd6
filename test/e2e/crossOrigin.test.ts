// Another web page on the same machine (a second loopback origin, another
// port) tries what the issue saw work: a `no-cors` POST of an upload, and
// reading the incident list. Chromium sends it; the server refuses it and
// creates nothing, and the other page cannot read the API either.

import { test, after } from "node:test";
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { getJson, startTestServer } from "../ui/serverHarness.js";
import { openPage, serverAndBrowser } from "./browserHarness.js";

const env = serverAndBrowser();
let evil: Server | undefined;
after(() => new Promise<void>((resolve) => (evil ? evil.close(() => resolve()) : resolve())));

/** A page that posts an upload to `target` and tries to read its incident list, then puts what happened in its title. */
function evilPage(target: string): string {
  return `<!doctype html><title>waiting</title><script>
  const form = new FormData();
  form.append("files", new Blob(["[2026-08-20 10:15:32 DP0 TP0] Prefill batch, #new-seq: 3, #new-token: 12288\\n"]), "p0/prefill-tp0.log");
  const post = fetch(${JSON.stringify(target)} + "api/incidents?name=planted", { method: "POST", mode: "no-cors", body: form }).then(() => "sent", () => "post failed");
  const read = fetch(${JSON.stringify(target)} + "api/incidents").then((r) => r.text()).then((t) => "read " + t.length, () => "read refused");
  Promise.all([post, read]).then((r) => { document.title = r.join(" / "); });
</script>`;
}

test("an upload posted by a page on another loopback origin is refused, and the list cannot be read from there", async () => {
  evil = createServer((_req, res) => res.writeHead(200, { "content-type": "text/html" }).end(evilPage(env.server.url)));
  await new Promise<void>((resolve) => evil!.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(evil.address() as AddressInfo).port}/`;
  assert.notEqual(origin, env.server.url);

  const { page } = await openPage(env.browser, origin);
  await page.waitForFunction(() => (globalThis as unknown as { document: { title: string } }).document.title !== "waiting");
  // The no-cors POST leaves the browser (its answer is opaque to the page); CORS keeps the list unreadable.
  assert.equal(await page.title(), "sent / read refused");
  await env.server.jobs.idle();
  const list = await getJson(env.server, "/api/incidents");
  assert.deepEqual(list.body, { incidents: [] }, "nothing was created");
  assert.ok(env.server.logs.every((l) => !l.includes("planted")));
});

test("a server that needs its token: the printed address opens the page, which then works on its cookie", async () => {
  const guarded = await startTestServer({ token: "token-of-this-test-0123456789abcdef" });
  try {
    const { page, errors } = await openPage(env.browser, `${guarded.url}?token=token-of-this-test-0123456789abcdef`);
    await page.locator("main.incident-list h1").waitFor();
    assert.equal(new URL(page.url()).search, "", "the token left the address bar");
    await page.locator(".incidents td.empty").waitFor();
    const bare = await env.browser.newPage();
    const refused = await bare.goto(guarded.url);
    assert.equal(refused!.status(), 401, "a browser without the cookie is refused");
    await bare.close();
    assert.deepEqual(errors, []);
  } finally {
    await guarded.close();
  }
});
