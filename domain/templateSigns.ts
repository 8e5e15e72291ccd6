// The version and backend signs the log templates declare (ingest/formats/templates/), for
// analyzer/replay/logSigns.ts, which may not import the ingest: per sign, the events that show it.
// Written by `npm run docs:templates` from the template rows; a test fails when it is stale.

import type { Backend } from "./vocabulary.js";

export interface SignEvent {
  readonly template: string;
  readonly kind: string;
  /** Attributes the template's event always has, with these values. */
  readonly attrs: Readonly<Record<string, string | number | boolean>>;
  /** Attributes the template's event always has. */
  readonly has: readonly string[];
}

export interface DeclaredSign {
  readonly why: string;
  readonly backend?: Backend;
  /** A change of the profile's CHANGES: the first release with it is a lower bound. */
  readonly since?: string;
  /** A change of the profile's CHANGES: the last release without it is an upper bound. */
  readonly until?: string;
  readonly sinceIf?: { readonly backend: Backend; readonly change: string };
  readonly events: readonly SignEvent[];
}

export const TEMPLATE_SIGNS: readonly DeclaredSign[] = [
  {
    "backend": "nixl",
    "why": "NIXL `sending kvcache … with notif` line (docs/protocol.md §3.2)",
    "events": [
      {
        "template": "sglangNixl.notif_sent",
        "kind": "xfer.notif_sent",
        "attrs": {},
        "has": [
          "peer",
          "tag"
        ]
      }
    ]
  },
  {
    "backend": "nixl",
    "why": "NIXL transport error line (docs/protocol.md §3.2)",
    "events": [
      {
        "template": "sglangNixl.transport_error",
        "kind": "xfer.error",
        "attrs": {
          "errorKind": "nixl_transport",
          "failureClass": "transport"
        },
        "has": [
          "error"
        ]
      }
    ]
  },
  {
    "backend": "nixl",
    "why": "NIXL KVManager start-up line (docs/protocol.md §3.2)",
    "events": [
      {
        "template": "sglangNixl.kv_manager",
        "kind": "config",
        "attrs": {
          "backend": "nixl"
        },
        "has": [
          "nixlBackend"
        ]
      }
    ]
  },
  {
    "backend": "mooncake",
    "why": "Mooncake transfer_worker skip line (docs/protocol.md §3.3)",
    "events": [
      {
        "template": "sglangNixl.skip_chunk_cleared",
        "kind": "xfer.skip_chunk",
        "attrs": {
          "because": "cleared"
        },
        "has": []
      },
      {
        "template": "sglangMooncake.skip_chunk",
        "kind": "xfer.skip_chunk",
        "attrs": {},
        "has": []
      }
    ]
  },
  {
    "since": "decodeSendsAbort",
    "sinceIf": {
      "backend": "nixl",
      "change": "nixlAbortHandler"
    },
    "why": "prefill handled an ABORT frame: #27372 (v0.5.13), on NIXL only with the handler of #30352 (v0.5.16) (docs/protocol.md §3.2, §7.1)",
    "events": [
      {
        "template": "sglangMooncake.abort_received_deferred",
        "kind": "abort.received",
        "attrs": {
          "outcome": "ack_deferred"
        },
        "has": []
      },
      {
        "template": "sglangMooncake.abort_received",
        "kind": "abort.received",
        "attrs": {
          "outcome": "marked_failed"
        },
        "has": []
      },
      {
        "template": "sglangMooncake.abort_ignored",
        "kind": "abort.received",
        "attrs": {
          "outcome": "ignored"
        },
        "has": []
      }
    ]
  },
  {
    "backend": "mooncake",
    "since": "decodeSendsAbort",
    "why": "Mooncake decode got ABORT_ACK, from #27372 (docs/protocol.md §3.3, §7.2)",
    "events": [
      {
        "template": "sglangMooncake.ack_received",
        "kind": "abort.ack_received",
        "attrs": {},
        "has": []
      }
    ]
  },
  {
    "backend": "mooncake",
    "why": "Mooncake AUX_DATA line (docs/protocol.md §3.3)",
    "events": [
      {
        "template": "sglangMooncake.aux_received",
        "kind": "xfer.aux_received",
        "attrs": {},
        "has": [
          "length"
        ]
      },
      {
        "template": "sglangMooncake.aux_mismatch",
        "kind": "xfer.error",
        "attrs": {
          "errorKind": "aux_length_mismatch",
          "failureClass": "transport"
        },
        "has": []
      }
    ]
  },
  {
    "backend": "mooncake",
    "since": "decodeSendsAbort",
    "why": "Mooncake prefill ABORT_ACK, from #27372 (docs/protocol.md §3.3, §7.2)",
    "events": [
      {
        "template": "sglangMooncake.ack_sent",
        "kind": "abort.ack_sent",
        "attrs": {},
        "has": [
          "to"
        ]
      }
    ]
  },
  {
    "backend": "mooncake",
    "why": "Mooncake `Session … failed.` line (docs/protocol.md §3.3)",
    "events": [
      {
        "template": "sglangMooncake.session_failed",
        "kind": "xfer.error",
        "attrs": {
          "errorKind": "mooncake_session",
          "failureClass": "transport"
        },
        "has": [
          "session"
        ]
      }
    ]
  },
  {
    "since": "decodeSendsAbort",
    "why": "decode sends ABORT to prefill from #27372 (docs/protocol.md §3.1, §7.1)",
    "events": [
      {
        "template": "sglangCommonConn.abort_sent",
        "kind": "abort.sent",
        "attrs": {},
        "has": [
          "to"
        ]
      }
    ]
  }
];
