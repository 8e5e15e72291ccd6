// Who may use the server (DESIGN.md "Web UI"): other web pages the user has
// open must not drive it, and nobody else on the network may read it.
// - Host: a request must name the address the server is bound to (or a name
//   given with --allow-host). A page on attacker.example that rebinds its
//   name to 127.0.0.1 sends `Host: attacker.example` and is refused, so it
//   cannot read incidents through the user's browser (DNS rebinding).
// - Origin: a state-changing request (anything but GET/HEAD/OPTIONS) from a
//   browser must come from the server's own origin. Browsers say where a
//   request comes from in Sec-Fetch-Site, Origin or Referer; a request with
//   none of them is not from a browser page (curl, scripts) and passes (the
//   scheme of Go's http.CrossOriginProtection, plus Referer).
// - Token: bound to anything but loopback, every request needs the access
//   token printed at start, as a cookie (set by opening `/?token=…`) or the
//   X-Kvrewind-Token header, compared in constant time.

import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { networkInterfaces, hostname } from "node:os";
import type { NextFunction, Request, Response } from "express";

export interface AccessPolicy {
  /** `host:port` values (lowercase) a request's Host may be. */
  hosts: Set<string>;
  /** The access token, when one is required. */
  token: string | null;
  /** The cookie that carries the token (per port: cookies do not tell ports apart). */
  cookie: string;
}

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);
const WILDCARD = new Set(["0.0.0.0", "::", ""]);

export function isLoopback(host: string): boolean {
  return LOOPBACK.has(host) || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** `[v6]:port` or `name:port`, lowercase. */
function hostPort(host: string, port: number): string {
  return `${host.includes(":") ? `[${host}]` : host}:${port}`.toLowerCase();
}

/** The names a client may reach a server bound to `host` by. */
function boundNames(host: string): string[] {
  if (isLoopback(host)) return ["127.0.0.1", "localhost", "::1", host];
  if (!WILDCARD.has(host)) return [host];
  const addresses = Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((a) => a.address));
  return ["localhost", "127.0.0.1", "::1", hostname(), ...addresses];
}

export interface AccessOptions {
  /** The address bound and the port listened on. */
  host: string;
  port: number;
  /** More names the server answers to (a DNS name or proxy in front of it). */
  allowHosts: readonly string[];
  /** A token to require; without one, a non-loopback bind gets a fresh random token. */
  token?: string;
}

export function accessPolicy(o: AccessOptions): AccessPolicy {
  const hosts = new Set<string>();
  for (const name of boundNames(o.host)) {
    hosts.add(hostPort(name, o.port));
    if (o.port === 80) hosts.add(name.toLowerCase());
  }
  for (const name of o.allowHosts) hosts.add(/:\d+$/.test(name) ? name.toLowerCase() : hostPort(name, o.port));
  const token = o.token ?? (isLoopback(o.host) ? null : randomBytes(24).toString("base64url"));
  return { hosts, token, cookie: `kvrewind_token_${o.port}` };
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** Why a request is refused, or null when it may go on. */
export function refusal(policy: AccessPolicy, req: Pick<Request, "method" | "headers">): { status: number; message: string } | null {
  const host = String(req.headers.host ?? "").toLowerCase();
  if (!policy.hosts.has(host)) {
    return { status: 403, message: `this server does not answer to the host '${host}' (start it with --allow-host to add a name)` };
  }
  if (!SAFE_METHODS.has(req.method) && !sameOrigin(policy, req.headers)) {
    return { status: 403, message: "refused: this request comes from another web page (only the kvrewind page itself may change incidents)" };
  }
  if (policy.token !== null && !tokenMatches(policy.token, presentedToken(policy, req.headers))) {
    return { status: 401, message: "this server needs its access token: open the address it printed at start (…/?token=…) or send the X-Kvrewind-Token header" };
  }
  return null;
}

function sameOrigin(policy: AccessPolicy, headers: Request["headers"]): boolean {
  const site = headers["sec-fetch-site"];
  if (typeof site === "string") return site === "same-origin" || site === "none";
  const origin = headers.origin ?? headers.referer;
  if (typeof origin !== "string") return true;
  try {
    const url = new URL(origin);
    return url.protocol === "http:" && policy.hosts.has(url.host.toLowerCase()) && url.host.toLowerCase() === String(headers.host).toLowerCase();
  } catch {
    return false;
  }
}

function presentedToken(policy: AccessPolicy, headers: Request["headers"]): string | undefined {
  const header = headers["x-kvrewind-token"];
  if (typeof header === "string") return header;
  const cookies = String(headers.cookie ?? "").split(";");
  const mine = cookies.map((c) => c.trim()).find((c) => c.startsWith(`${policy.cookie}=`));
  return mine?.slice(policy.cookie.length + 1);
}

/** Constant-time: both sides are hashed to the same length before comparing. */
function tokenMatches(expected: string, given: string | undefined): boolean {
  if (given === undefined) return false;
  const digest = (s: string) => createHash("sha256").update(s).digest();
  return timingSafeEqual(digest(expected), digest(given));
}

/**
 * The middleware. Opening any page with `?token=…` (the address printed at
 * start) checks the token, sets it as a cookie (HttpOnly, SameSite=Strict) and
 * sends the browser to the same address without it.
 */
export function accessGuard(policy: () => AccessPolicy | undefined) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const p = policy();
    if (!p) {
      res.status(503).type("text/plain").send("starting\n");
      return;
    }
    const url = new URL(req.originalUrl, "http://x");
    const offered = url.searchParams.get("token");
    const hostKnown = p.hosts.has(String(req.headers.host ?? "").toLowerCase());
    if (p.token !== null && offered !== null && hostKnown && req.method === "GET" && !req.path.startsWith("/api/") && tokenMatches(p.token, offered)) {
      url.searchParams.delete("token");
      res.cookie(p.cookie, offered, { httpOnly: true, sameSite: "strict", path: "/" });
      res.redirect(303, `${url.pathname}${url.search}`);
      return;
    }
    const refused = refusal(p, req);
    if (!refused) return next();
    res.status(refused.status);
    if (req.path.startsWith("/api/")) res.json({ error: refused.message });
    else res.type("text/plain").send(`${refused.message}\n`);
  };
}
