// `kubectl get events` (and `-o wide`, `-A`, the newer `kubectl events`): a
// table whose header is `[NAMESPACE] LAST SEEN TYPE REASON OBJECT [SUBOBJECT
// SOURCE] MESSAGE [FIRST SEEN COUNT NAME]` (kubectl
// pkg/printers/internalversion/printers.go, the event column definitions;
// `-o wide` adds the bracketed ones), one event a row. OBJECT is
// `<kind>/<name>` (`pod/sglang-decode-0`): a pod's or a node's name is the
// row's host, and a pod's gives the role. Ages (`2m3s`, `<unknown>`) date
// nothing: the rows are undated.

import type { InputFormat } from "../format.js";
import { kubectlOutputOf } from "./columns.js";
import { countOfAge, placeEvent, podEventOf } from "./podEvents.js";
import { KubectlTableParser, type KubectlTable } from "./table.js";

const HEADER = /^(?:NAMESPACE\s+)?LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+/;
const COLUMNS = ["NAMESPACE", "LAST SEEN", "TYPE", "REASON", "OBJECT", "SUBOBJECT", "SOURCE", "MESSAGE", "FIRST SEEN", "COUNT", "NAME"];

const EVENTS: KubectlTable = {
  header: HEADER,
  columns: COLUMNS,
  shown: "kubectl get events' table (LAST SEEN TYPE REASON OBJECT MESSAGE)",
  read(row, ev, ctx) {
    if (!row.get("TYPE") || !row.get("REASON")) return false;
    const object = row.get("OBJECT") ?? "";
    const count = row.get("COUNT");
    podEventOf(ev, row.get("TYPE")!, row.get("REASON")!, row.get("MESSAGE") ?? "", count !== undefined && /^\d+$/.test(count) ? Number(count) : countOfAge(row.get("LAST SEEN") ?? ""));
    placeEvent(ev, object, ctx);
    return true;
  },
};

export const kubectlEvents: InputFormat = {
  name: "kubectl-events",
  detect: (head) => HEADER.test(kubectlOutputOf(head)),
  createParser: (ctx) => new KubectlTableParser(EVENTS, ctx),
};
