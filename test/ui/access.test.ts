// Who may use the server, against a real one on loopback (ui/server/access.ts):
// another origin cannot upload (CSRF), another Host is not answered (DNS
// rebinding), a non-browser client and the page's own origin go on as before,
// and a server that needs its token refuses everything without it.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { request } from "node:http";
import { accessPolicy, refusal } from "../../ui/server/access.js";
import { startTestServer, type TestServer } from "./serverHarness.js";

const LOG = "[2026-08-20 10:15:32 DP0 TP0] Prefill batch, #new-seq: 3, #new-token: 12288, #cached-token: 2048, token usage: 0.21, #running-req: 3, #queue-req: 5\n";

let server: TestServer;
before(async () => {
  server = await startTestServer({ allowHosts: ["kvrewind.internal"] });
});
after(async () => {
  await server?.close();
});

interface Sent {
  status: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

/** A request with exactly the headers given (fetch would set Origin or refuse to set Host). */
function send(s: TestServer, method: string, path: string, headers: Record<string, string>, body?: Buffer): Promise<Sent> {
  const url = new URL(path, s.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path: url.pathname + url.search, method, headers: { ...headers, ...(body && { "content-length": String(body.length) }) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode!, body: Buffer.concat(chunks).toString(), headers: res.headers }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

function form(name: string, content: string): { type: string; body: Buffer } {
  return {
    type: "multipart/form-data; boundary=XB",
    body: Buffer.from(`--XB\r\nContent-Disposition: form-data; name="files"; filename="${name}"\r\n\r\n${content}\r\n--XB--\r\n`),
  };
}

const host = () => new URL(server.url).host;

test("an upload from another origin is refused, and creates nothing", async () => {
  const other = `http://127.0.0.1:${Number(new URL(server.url).port) + 1}`;
  const cases: Record<string, string>[] = [
    { origin: other },
    { origin: "http://attacker.example" },
    { origin: "null" },
    { "sec-fetch-site": "same-site", origin: other },
    { "sec-fetch-site": "cross-site" },
    { referer: `${other}/evil.html` },
  ];
  for (const extra of cases) {
    const { type, body } = form("p0/prefill-tp0.log", LOG);
    const r = await send(server, "POST", "/api/incidents?name=csrf", { host: host(), "content-type": type, ...extra }, body);
    assert.equal(r.status, 403, JSON.stringify(extra));
    assert.match(r.body, /comes from another web page/);
  }
  const list = await send(server, "GET", "/api/incidents", { host: host() });
  assert.deepEqual(JSON.parse(list.body), { incidents: [] });
});

test("the page's own origin and a client that is no browser may upload", async () => {
  for (const [name, extra] of [
    ["same-origin", { origin: server.url.replace(/\/$/, ""), "sec-fetch-site": "same-origin" }],
    ["script", {}],
  ] as const) {
    const { type, body } = form("p0/prefill-tp0.log", LOG);
    const r = await send(server, "POST", `/api/incidents?name=${name}`, { host: host(), "content-type": type, ...extra }, body);
    assert.equal(r.status, 202, `${name}: ${r.body}`);
  }
});

test("a request for another Host is not answered; the bound address, localhost and --allow-host names are", async () => {
  const port = new URL(server.url).port;
  const rebound = await send(server, "GET", "/api/incidents", { host: `attacker.example:${port}` });
  assert.equal(rebound.status, 403);
  assert.match(JSON.parse(rebound.body).error, /does not answer to the host 'attacker\.example:\d+'/);
  const page = await send(server, "GET", "/", { host: `attacker.example:${port}` });
  assert.equal(page.status, 403);
  assert.doesNotMatch(page.body, /<div id="app">/);
  for (const name of [`127.0.0.1:${port}`, `localhost:${port}`, `kvrewind.internal:${port}`]) {
    assert.equal((await send(server, "GET", "/api/incidents", { host: name })).status, 200, name);
  }
  assert.equal((await send(server, "GET", "/api/incidents", { host: `localhost:${Number(port) + 1}` })).status, 403, "another port is another server");
});

test("a server that needs its token refuses every request without it, and opening ?token= sets a cookie", async () => {
  const guarded = await startTestServer({ token: "s3cret-token-for-the-test" });
  try {
    const h = new URL(guarded.url).host;
    const without = await send(guarded, "GET", "/api/incidents", { host: h });
    assert.equal(without.status, 401);
    assert.match(JSON.parse(without.body).error, /needs its access token/);
    assert.equal((await send(guarded, "GET", "/", { host: h })).status, 401);
    assert.equal((await send(guarded, "GET", "/api/incidents", { host: h, "x-kvrewind-token": "s3cret-token-for-the-tesT" })).status, 401);
    assert.equal((await send(guarded, "GET", "/api/incidents", { host: h, "x-kvrewind-token": "s3cret-token-for-the-test" })).status, 200);

    const opened = await send(guarded, "GET", "/?incident=x&token=s3cret-token-for-the-test", { host: h });
    assert.equal(opened.status, 303);
    assert.equal(opened.headers["location"], "/?incident=x");
    const cookie = String(opened.headers["set-cookie"]).split(";")[0]!;
    assert.match(String(opened.headers["set-cookie"]), /HttpOnly; SameSite=Strict/);
    assert.equal((await send(guarded, "GET", "/api/incidents", { host: h, cookie })).status, 200);
    assert.equal((await send(guarded, "GET", "/?token=wrong", { host: h })).status, 401);
  } finally {
    await guarded.close();
  }
});

test("a non-loopback bind gets a token of its own; loopback needs none", () => {
  const network = accessPolicy({ host: "0.0.0.0", port: 7070, allowHosts: [] });
  assert.match(network.token!, /^[A-Za-z0-9_-]{32}$/);
  assert.notEqual(accessPolicy({ host: "0.0.0.0", port: 7070, allowHosts: [] }).token, network.token);
  assert.equal(accessPolicy({ host: "10.1.2.3", port: 7070, allowHosts: [] }).token !== null, true);
  assert.equal(accessPolicy({ host: "127.0.0.1", port: 7070, allowHosts: [] }).token, null);
  assert.equal(accessPolicy({ host: "::1", port: 7070, allowHosts: [] }).token, null);
  const ip = accessPolicy({ host: "10.1.2.3", port: 7070, allowHosts: [] });
  assert.equal(refusal(ip, { method: "GET", headers: { host: "10.1.2.3:7070", "x-kvrewind-token": ip.token! } }), null);
  assert.equal(refusal(ip, { method: "GET", headers: { host: "127.0.0.1:7070", "x-kvrewind-token": ip.token! } })?.status, 403, "bound to one address, answers on that one");
});

test("every answer forbids framing and plugins, and sends no type the browser would guess", async () => {
  for (const path of ["/", "/api/incidents"]) {
    const r = await send(server, "GET", path, { host: new URL(server.url).host });
    const csp = String(r.headers["content-security-policy"]);
    assert.match(csp, /frame-ancestors 'none'/, path);
    assert.match(csp, /object-src 'none'/, path);
    assert.match(csp, /script-src 'self'(;|$)/, path);
    assert.equal(r.headers["x-content-type-options"], "nosniff", path);
  }
});
