// uvicorn's access line under SGLang's log format (docs/protocol.md §1):
//   [%(asctime)s] %(levelprefix)s %(client_addr)s - "%(request_line)s" %(status_code)s
// `levelprefix` is the level name and a colon padded to 9 columns
// (`INFO:    `), `request_line` is `METHOD path HTTP/version`, and
// `status_code` is the code and its reason phrase (`200 OK`; just `599 ` for
// codes without one). With colours on, uvicorn wraps parts in ANSI escapes,
// removed before matching. An unknown client prints as the empty string.
//
// With no level before it, the line is uvicorn's access record itself,
// `'%s - "%s %s HTTP/%s" %d'` (uvicorn protocols/http/h11_impl.py and
// httptools_impl.py, `RequestResponseCycle.send`), under a log format that
// prints the message alone, or its AccessFormatter with a format lacking
// `%(levelprefix)s` (uvicorn logging.py, which adds the reason phrase):
// `10.32.6.65:47558 - "GET /health HTTP/1.1" 200 OK`. Its client is an IP
// address and port, IPv6 in brackets.
//
// A server error in the status (a 5xx but 503, FAILED_STATUS) makes the line
// the request's failure, an `http.failed` record, which process-failure judges
// at medium: the cause is in what the server logged before it, where one is
// logged. A kind of its own: a server logs an access line for every request
// and health check, and the rules read only the failures.

import type { ParsedEvent } from "../../../../domain/event.js";
import { LogKind } from "../../../../domain/kinds.js";
import { cap, type LogTemplate, type TemplateComponent } from "../template.js";

/** The access line with a level before it, its status as `status` says (any code, a failed one, or any other). */
function accessPattern(status: string): RegExp {
  return new RegExp(String.raw`(?<level>INFO|WARNING|ERROR|DEBUG|CRITICAL|TRACE): +(?:(?<client>\S+) )?- "(?<method>\S+) (?<path>.*) HTTP\/(?<httpVersion>[0-9.]+)" (?<status>${status})(?: (?<reason>.*))?$`, "ys");
}
/** The access record on its own. */
function bareAccessPattern(status: string): RegExp {
  return new RegExp(String.raw`(?<client>\d[\d.]*:\d+|\[[0-9A-Fa-f:.]+\]:\d+) - "(?<method>[A-Z]+) (?<path>.*) HTTP\/(?<httpVersion>[0-9.]+)" (?<status>${status})(?: (?<reason>.*))?$`, "ys");
}
/**
 * A status by which the server says the request failed on its side: a 5xx (RFC 9110 §15.6), uvicorn's 500 for an
 * application that raised (`Exception in ASGI application`), the server's own 500 for a request it aborted. Not a
 * 503: SGLang's health endpoint answers it while the server starts and while it shuts down (python/sglang/srt/
 * entrypoints/http_server.py health_generate), uvicorn when `--limit-concurrency` is reached — a refusal to take
 * the request, which a healthy server also gives.
 */
export const FAILED_STATUS = String.raw`5(?:0[0-24-9]|[1-9]\d)`;
const FAILED = new RegExp(`^(?:${FAILED_STATUS})$`);
export const OTHER_STATUS = String.raw`(?!${FAILED_STATUS})\d{3}`;

/** Whether a status says the request failed on the server (FAILED_STATUS). */
export function isFailedStatus(status: number): boolean {
  return FAILED.test(String(status));
}
const ACCESS = accessPattern(String.raw`\d{3}`);
const BARE_ACCESS = bareAccessPattern(String.raw`\d{3}`);
/** How far into the line a client address and port may run before its ` - "`. */
const MAX_CLIENT = 64;
// uvicorn's colour escapes (use_colors).
const ANSI = /\x1b\[[0-9;]*m/g;

/** A level name (INFO, WARNING, ERROR, DEBUG, CRITICAL, TRACE) opening a line that holds ` - "`. */
function accessHead(line: string, at: number): boolean {
  const c = line.charCodeAt(at);
  return (c === 73 || c === 87 || c === 69 || c === 68 || c === 67 || c === 84) && line.indexOf(' - "', at) >= 0;
}

/** A digit or `[` opening a line whose ` - "` follows within a client address's length. */
function bareAccessHead(line: string, at: number): boolean {
  const c = line.charCodeAt(at);
  if (!((c >= 48 && c <= 57) || c === 91)) return false;
  const dash = line.indexOf(' - "', at);
  return dash > at && dash - at <= MAX_CLIENT;
}

/** The access line at `at` into `ev`; false when the message is none. */
export function parseHttpAccess(line: string, at: number, ev: ParsedEvent): boolean {
  if (!accessHead(line, at)) return false;
  return readAccess(line, at, ev);
}

function readAccess(line: string, at: number, ev: ParsedEvent): boolean {
  return readWith(ACCESS, line, at, ev);
}

function readBareAccess(line: string, at: number, ev: ParsedEvent): boolean {
  return readWith(BARE_ACCESS, line, at, ev);
}

function readWith(pattern: RegExp, line: string, at: number, ev: ParsedEvent): boolean {
  let text = line;
  let from = at;
  if (line.indexOf("\x1b", at) >= 0) {
    text = line.substring(at).replace(ANSI, "");
    from = 0;
  }
  pattern.lastIndex = from;
  const m = pattern.exec(text);
  if (m === null) return false;
  const g = m.groups!;
  const attrs: Record<string, unknown> = {
    client: g.client ?? "",
    method: g.method,
    path: g.path,
    httpVersion: g.httpVersion,
    status: Number(g.status),
  };
  if (g.level !== undefined) attrs.level = g.level;
  if (g.reason !== undefined && g.reason.length > 0) attrs.reason = g.reason;
  ev.kind = LogKind.httpAccess;
  if (isFailedStatus(Number(g.status))) {
    ev.kind = LogKind.httpFailed;
    attrs.failureClass = "request";
    attrs.error = `${g.method} ${g.path} answered ${g.status}${attrs.reason === undefined ? "" : ` ${attrs.reason as string}`}`;
  }
  ev.attrs = attrs;
  return true;
}


/** What an access line says of its request, with or without a level before it. */
const REQUEST_ATTRS = {
  client: cap("client"),
  method: cap("method"),
  path: cap("path"),
  httpVersion: cap("httpVersion"),
  status: cap("status", "number"),
  reason: cap("reason"),
};

const ACCESS_FORMAT = '[%(asctime)s] %(levelprefix)s %(client_addr)s - "%(request_line)s" %(status_code)s';
const ACCESS_SOURCE = "uvicorn's access logger under SGLang's log format (docs/protocol.md §1)";
const BARE_FORMAT = '%(client_addr)s - "%(request_line)s" %(status_code)s (the access record with no level prefix)';
const BARE_SOURCE =
  "uvicorn protocols/http/h11_impl.py and httptools_impl.py, RequestResponseCycle.send (`'%s - \"%s %s HTTP/%s\" %d'`); logging.py AccessFormatter adds the reason phrase";

const templates: LogTemplate[] = [
  {
    id: "uvicorn.access",
    level: "info",
    format: `${ACCESS_FORMAT} — any status but a server error (a 503 is a refusal: the server starting, shutting down or full)`,
    source: ACCESS_SOURCE,
    checked: "✔ (users' logs)",
    head: accessHead,
    firstChars: "IWEDCT",
    pattern: accessPattern(OTHER_STATUS),
    kind: LogKind.httpAccess,
    attrs: { level: cap("level"), ...REQUEST_ATTRS },
    read: readAccess,
    samples: [
      '[2025-09-17 16:23:13] INFO:     10.10.11.1:41698 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
      '[2026-03-26 08:44:08] INFO: 127.0.0.1:38764 - "GET /health_generate HTTP/1.1" 503 Service Unavailable',
    ],
  },
  {
    id: "uvicorn.access_failed",
    level: "info",
    format: `${ACCESS_FORMAT} — a 5xx other than 503: the request failed on the server (\`failureClass: request\`, \`error\`)`,
    source: ACCESS_SOURCE,
    checked: "✔ (users' logs)",
    head: accessHead,
    firstChars: "IWEDCT",
    pattern: accessPattern(FAILED_STATUS),
    kind: LogKind.httpFailed,
    attrs: { level: cap("level"), ...REQUEST_ATTRS, failureClass: "request" },
    read: readAccess,
    samples: ['[2026-04-06 12:49:33] INFO:     192.168.0.45:57586 - "POST /v1/chat/completions HTTP/1.1" 500 Internal Server Error'],
  },
  {
    id: "uvicorn.access_message",
    level: "info",
    format: `${BARE_FORMAT} — any status but a server error`,
    source: BARE_SOURCE,
    checked: "✔",
    head: bareAccessHead,
    firstChars: "0123456789[",
    bare: true,
    pattern: bareAccessPattern(OTHER_STATUS),
    kind: LogKind.httpAccess,
    attrs: REQUEST_ATTRS,
    read: readBareAccess,
    samples: ['10.32.6.65:47558 - "GET /health_generate HTTP/1.1" 200 OK', '127.0.0.1:59888 - "POST /v1/chat/completions HTTP/1.1" 200 OK'],
  },
  {
    id: "uvicorn.access_message_failed",
    level: "info",
    format: `${BARE_FORMAT} — a 5xx other than 503: the request failed on the server`,
    source: BARE_SOURCE,
    checked: "✔",
    head: bareAccessHead,
    firstChars: "0123456789[",
    bare: true,
    pattern: bareAccessPattern(FAILED_STATUS),
    kind: LogKind.httpFailed,
    attrs: { ...REQUEST_ATTRS, failureClass: "request" },
    read: readBareAccess,
    // Written in the printer's shape: no user's paste we hold has one.
    samples: ['10.32.6.65:47570 - "POST /generate HTTP/1.1" 500 Internal Server Error'],
  },
];

export const UVICORN: TemplateComponent = {
  name: "uvicorn",
  dialect: "sglang",
  title: "uvicorn",
  intro: "The HTTP server's access lines, under SGLang's prefix or on their own.",
  templates,
};
