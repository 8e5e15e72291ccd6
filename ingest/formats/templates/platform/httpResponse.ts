// What a client prints of a server's answer, pasted beside the server's logs:
// curl's status line (`-i` prints the response's headers, `-v` the same
// behind `< `) and the error body of an OpenAI-compatible server.
//
// The status line is the server's own (RFC 9112 §4: `HTTP/1.1 500 Internal
// Server Error`); HTTP/2 and HTTP/3 carry no reason phrase, and curl prints
// them `HTTP/2 500` (lib/http.c, Curl_http_readwrite_headers). The error body
// is SGLang's and vLLM's ErrorResponse as the HTTP server returns it:
// `{"object":"error","message":…,"type":…,"param":…,"code":500}` (SGLang
// python/sglang/srt/entrypoints/openai/protocol.py ErrorResponse, served by
// serving_base.py create_error_response through a JSONResponse; vLLM's before
// 0.10.2), `{"error":{"message":…,"type":…,"param":…,"code":500}}` (vLLM's
// ErrorResponse(error=ErrorInfo(…)) since), and in a stream the server's
// `data: {"error": …}` event (create_streaming_error_response, json.dumps).
// `code` is the HTTP status the server answered with.
//
// A server error (a 5xx but 503: uvicorn.ts's FAILED_STATUS) makes the line
// the request's failure, an `http.failed` record; any other status is the
// answer's information.
//
// httpx's error for a status the client raised on (Response.raise_for_status,
// httpx/_models.py) is two lines: `{error_type} '{status} {reason}' for url
// '{url}'` and `For more information check:
// https://developer.mozilla.org/en-US/docs/Web/HTTP/Status/{status}`. A caller
// that logs or prints the error with words of its own before it (`Error: {e}`)
// puts them before the first line, and words it adds after the error (a retry
// count, the answer's body) after the second; the second line opens with
// httpx's words and carries the status, so it is the one read. A 503 is a
// refusal here as everywhere, but not the SGLang router's answer that none of
// its workers can take the request, `No available workers (all circuits open
// or unhealthy)` (sgl-router src/routers/http/router.rs route_typed_request,
// when select_worker_with_circuit_breaker finds no worker that is healthy and
// whose circuit breaker is closed; `No available {prefill|decode} workers (…)`
// from the PD router's worker selection): every worker behind the router
// failed its health checks or tripped its breaker, and the client's request
// failed with them.

import type { ParsedEvent } from "../../../../domain/event.js";
import { LogKind } from "../../../../domain/kinds.js";
import { cap, type LogTemplate, type TemplateComponent } from "../template.js";
import { FAILED_STATUS, isFailedStatus, OTHER_STATUS } from "./uvicorn.js";

function statusLinePattern(status: string): RegExp {
  return new RegExp(String.raw`(?:< )?HTTP\/(?<httpVersion>1\.[01]|2|3) (?<status>${status})(?: (?<reason>\S.*?))?\s*$`, "ys");
}

function statusLineHead(line: string, at: number): boolean {
  return line.startsWith("HTTP/", at) || line.startsWith("< HTTP/", at);
}

const STATUS_LINE = statusLinePattern(String.raw`\d{3}`);

function readStatusLine(line: string, at: number, ev: ParsedEvent): boolean {
  STATUS_LINE.lastIndex = at;
  const m = STATUS_LINE.exec(line);
  if (m === null) return false;
  const g = m.groups!;
  const attrs: Record<string, unknown> = { httpVersion: g.httpVersion, status: Number(g.status) };
  if (g.reason !== undefined) attrs.reason = g.reason;
  answered(ev, attrs, `the server answered ${g.status}${g.reason === undefined ? "" : ` ${g.reason}`}`);
  return true;
}

/** An http.failed record for a server error, else the answer's http.access record. */
function answered(ev: ParsedEvent, attrs: Record<string, unknown>, error: string): void {
  ev.kind = LogKind.httpAccess;
  if (isFailedStatus(attrs.status as number)) {
    ev.kind = LogKind.httpFailed;
    attrs.failureClass = "request";
    attrs.error = error;
  }
  ev.attrs = attrs;
}

const STREAM_EVENT = "data: ";

function errorBodyHead(line: string, at: number): boolean {
  const from = line.startsWith(STREAM_EVENT, at) ? at + STREAM_EVENT.length : at;
  return line.startsWith('{"', from) && line.indexOf('"error"', from) > 0;
}

/** The error object of an OpenAI-compatible body: the body itself (`"object": "error"`) or its `error` member. */
function errorObjectOf(body: unknown): { message: string; type?: string; code: number } | null {
  if (typeof body !== "object" || body === null) return null;
  const b = body as Record<string, unknown>;
  const e = b.object === "error" ? b : b.error;
  if (typeof e !== "object" || e === null) return null;
  const { message, type, code } = e as Record<string, unknown>;
  if (typeof message !== "string" || typeof code !== "number" || !Number.isInteger(code) || code < 100 || code > 599) return null;
  return typeof type === "string" ? { message, type, code } : { message, code };
}

/**
 * The JSON object a line opens with, or undefined. curl ends its output with the body's last byte, so the shell's next
 * prompt often follows the body on the same line: the object is then read up to its last closing brace.
 */
function parsedBody(text: string): unknown {
  for (const end of [text.length, text.lastIndexOf("}") + 1]) {
    try {
      return JSON.parse(text.substring(0, end));
    } catch {
      continue;
    }
  }
  return undefined;
}

function readErrorBody(line: string, at: number, ev: ParsedEvent): boolean {
  if (!errorBodyHead(line, at)) return false;
  const text = line.substring(line.startsWith(STREAM_EVENT, at) ? at + STREAM_EVENT.length : at);
  const err = errorObjectOf(parsedBody(text));
  if (err === null) return false;
  const attrs: Record<string, unknown> = { status: err.code, message: err.message };
  if (err.type !== undefined) attrs.errorType = err.type;
  answered(ev, attrs, `the server answered ${err.code}${err.type === undefined ? "" : ` ${err.type}`}: ${err.message}`);
  return true;
}

function errorBodyPattern(status: string): RegExp {
  return new RegExp(String.raw`(?:data: )?\{.*"(?:object|error)": ?(?:"error"|\{).*"code": ?(?<status>${status})\b.*\}.*$`, "ys");
}

const HTTPX_MORE_INFO = "For more information check: https://developer.mozilla.org/en-US/docs/Web/HTTP/Status/";

/** The SGLang router's answer that no worker is available: every one unhealthy or its circuit breaker open. */
const ROUTER_NO_WORKERS = /No available (?:(?:prefill|decode) )?workers \(all circuits open or unhealthy\)/;

function httpxMoreInfoPattern(status: string, routerNoWorkers: boolean): RegExp {
  // The router's answer is its own row's: the other rows' rest must not hold it, so that one row claims each line.
  const rest = routerNoWorkers ? String.raw`.*${ROUTER_NO_WORKERS.source}.*` : String.raw`(?!.*${ROUTER_NO_WORKERS.source}).*`;
  return new RegExp(String.raw`For more information check: https:\/\/developer\.mozilla\.org\/en-US\/docs\/Web\/HTTP\/Status\/(?<status>${status})\b(?<rest>${rest})$`, "ys");
}

/** The line whatever its status and rest, for the read (the rows' patterns split it among them). */
const HTTPX_MORE_INFO_ANY = /For more information check: https:\/\/developer\.mozilla\.org\/en-US\/docs\/Web\/HTTP\/Status\/(?<status>\d{3})\b(?<rest>.*)$/ys;

function readHttpxMoreInfo(line: string, at: number, ev: ParsedEvent): boolean {
  HTTPX_MORE_INFO_ANY.lastIndex = at;
  const m = HTTPX_MORE_INFO_ANY.exec(line);
  if (m === null) return false;
  const status = Number(m.groups!.status);
  const attrs: Record<string, unknown> = { status, client: "httpx" };
  const noWorkers = ROUTER_NO_WORKERS.exec(m.groups!.rest!);
  if (noWorkers !== null) {
    ev.kind = LogKind.httpFailed;
    attrs.failureClass = "request";
    attrs.error = `the router answered ${status}: ${noWorkers[0]}`;
    ev.attrs = attrs;
    return true;
  }
  answered(ev, attrs, `the server answered ${status}`);
  return true;
}

const HTTPX_MORE_INFO_FORMAT =
  "{error_type} '{status} {reason}' for url '{url}'\\nFor more information check: https://developer.mozilla.org/en-US/docs/Web/HTTP/Status/{status} — its second line, and whatever the caller printed after the error";
const HTTPX_MORE_INFO_SOURCE = "httpx httpx/_models.py Response.raise_for_status (the HTTPStatusError's message), printed by the client that caught it";

const STATUS_LINE_FORMAT = "HTTP/{version} {status} {reason} (curl -i; `< ` before it with -v; no reason phrase over HTTP/2 and 3)";
const STATUS_LINE_SOURCE = "RFC 9112 §4 status-line, as curl prints the response's headers (lib/http.c, Curl_http_readwrite_headers)";
const ERROR_BODY_FORMAT =
  '{"object":"error","message":{message},"type":{type},"param":{param},"code":{status}}, or {"error":{…}}, or a stream\'s `data: {"error": {…}}`';
const ERROR_BODY_SOURCE =
  "SGLang python/sglang/srt/entrypoints/openai/protocol.py ErrorResponse, serving_base.py create_error_response and create_streaming_error_response; vLLM vllm/entrypoints/openai/protocol.py ErrorResponse (ErrorInfo since 0.10.2)";
const STATUS_ATTRS = { httpVersion: cap("httpVersion"), status: cap("status", "number"), reason: cap("reason") };

const templates: LogTemplate[] = [
  {
    id: "httpResponse.status_line",
    level: "stdout",
    format: `${STATUS_LINE_FORMAT} — any status but a server error`,
    source: STATUS_LINE_SOURCE,
    checked: "✔",
    head: statusLineHead,
    firstChars: "H<",
    bare: true,
    pattern: statusLinePattern(OTHER_STATUS),
    kind: LogKind.httpAccess,
    attrs: STATUS_ATTRS,
    read: readStatusLine,
    // curl 7.88's `-i` and `-v` output against a local server.
    samples: ["HTTP/1.1 200 OK", "< HTTP/1.0 503 Service Unavailable"],
  },
  {
    id: "httpResponse.status_line_failed",
    level: "stdout",
    format: `${STATUS_LINE_FORMAT} — a 5xx other than 503: the request failed on the server (\`failureClass: request\`, \`error\`)`,
    source: STATUS_LINE_SOURCE,
    checked: "✔",
    head: statusLineHead,
    firstChars: "H<",
    bare: true,
    pattern: statusLinePattern(FAILED_STATUS),
    kind: LogKind.httpFailed,
    attrs: { ...STATUS_ATTRS, failureClass: "request" },
    read: readStatusLine,
    samples: ["HTTP/1.0 500 Internal Server Error", "< HTTP/1.0 502 Bad Gateway"],
  },
  {
    id: "httpResponse.error_body",
    level: "stdout",
    format: `${ERROR_BODY_FORMAT} — any status but a server error: a refused request (its \`message\`, \`errorType\`)`,
    source: ERROR_BODY_SOURCE,
    checked: "✔",
    head: errorBodyHead,
    firstChars: "{d",
    bare: true,
    pattern: errorBodyPattern(OTHER_STATUS),
    kind: LogKind.httpAccess,
    attrs: { status: cap("status", "number") },
    read: readErrorBody,
    samples: [
      '{"object":"error","message":"The model `deepseek-v3` does not exist.","type":"NotFoundError","param":null,"code":404}',
      '{"error":{"message":"This model\'s maximum context length is 4096 tokens.","type":"BadRequestError","param":null,"code":400}}',
    ],
  },
  {
    id: "httpResponse.error_body_failed",
    level: "stdout",
    format: `${ERROR_BODY_FORMAT} — a 5xx other than 503: the request failed on the server (\`failureClass: request\`, \`error\`)`,
    source: ERROR_BODY_SOURCE,
    checked: "✔",
    head: errorBodyHead,
    firstChars: "{d",
    bare: true,
    pattern: errorBodyPattern(FAILED_STATUS),
    kind: LogKind.httpFailed,
    attrs: { status: cap("status", "number"), failureClass: "request" },
    read: readErrorBody,
    samples: [
      '{"object":"error","message":"Internal server error","type":"InternalServerError","param":null,"code":500}root@gpu-node-1:~# ',
      'data: {"error": {"object": "error", "message": "KV transfer failed for request 8f2c", "type": "InternalServerError", "param": null, "code": 500}}',
    ],
  },
  {
    id: "httpResponse.httpx_router_no_workers",
    level: "stdout",
    format: `${HTTPX_MORE_INFO_FORMAT}, the answer being the SGLang router's \`No available workers (all circuits open or unhealthy)\`: the request failed with every worker behind the router (\`failureClass: request\`, \`error\`)`,
    source: `${HTTPX_MORE_INFO_SOURCE}; sgl-router src/routers/http/router.rs route_typed_request (\`StatusCode::SERVICE_UNAVAILABLE, "No available workers (all circuits open or unhealthy)"\` when select_worker_with_circuit_breaker finds none) and the PD router's worker selection (\`No available {} workers (all circuits open or unhealthy)\`), index copies`,
    checked: "✔",
    head: HTTPX_MORE_INFO,
    bare: true,
    pattern: httpxMoreInfoPattern(String.raw`\d{3}`, true),
    kind: LogKind.httpFailed,
    attrs: { status: cap("status", "number"), failureClass: "request" },
    read: readHttpxMoreInfo,
    samples: [
      'For more information check: https://developer.mozilla.org/en-US/docs/Web/HTTP/Status/503, retrying... (attempt 3/60, url=http://10.0.0.7:3592/generate, response={"error":{"type":"Service Unavailable","code":"no_available_workers","message":"No available workers (all circuits open or unhealthy)"}})',
    ],
  },
  {
    id: "httpResponse.httpx_status_failed",
    level: "stdout",
    format: `${HTTPX_MORE_INFO_FORMAT} — a 5xx other than 503: the request failed on the server (\`failureClass: request\`, \`error\`)`,
    source: HTTPX_MORE_INFO_SOURCE,
    checked: "✔",
    head: HTTPX_MORE_INFO,
    bare: true,
    pattern: httpxMoreInfoPattern(FAILED_STATUS, false),
    kind: LogKind.httpFailed,
    attrs: { status: cap("status", "number"), failureClass: "request" },
    read: readHttpxMoreInfo,
    samples: ["For more information check: https://developer.mozilla.org/en-US/docs/Web/HTTP/Status/502"],
  },
  {
    id: "httpResponse.httpx_status",
    level: "stdout",
    format: `${HTTPX_MORE_INFO_FORMAT} — any status but a server error: a refusal or the client's own error (a 503 is a refusal: the server starting, shutting down or full)`,
    source: HTTPX_MORE_INFO_SOURCE,
    checked: "✔",
    head: HTTPX_MORE_INFO,
    bare: true,
    pattern: httpxMoreInfoPattern(OTHER_STATUS, false),
    kind: LogKind.httpAccess,
    attrs: { status: cap("status", "number") },
    read: readHttpxMoreInfo,
    samples: [
      "For more information check: https://developer.mozilla.org/en-US/docs/Web/HTTP/Status/503",
      "For more information check: https://developer.mozilla.org/en-US/docs/Web/HTTP/Status/404, retrying... (attempt 2/5)",
    ],
  },
];

export const HTTP_RESPONSE: TemplateComponent = {
  name: "httpResponse",
  dialect: "sglang",
  title: "An HTTP client's print of the answer",
  intro:
    "curl's status line, an OpenAI-compatible server's error body and httpx's error for a status the client raised on (its second line, `For more information check: …/Status/{status}`), as a user pastes them beside the server's logs. The SGLang router's answer that no worker is available (every one unhealthy or its circuit open) is the request's failure whatever its status.",
  templates,
};
