// `kubectl get pods` (and `-o wide`, `-A`): a table whose header is
// `[NAMESPACE] NAME READY STATUS RESTARTS AGE [IP NODE NOMINATED NODE
// READINESS GATES]` (kubectl pkg/printers/internalversion/printers.go, the
// pod column definitions and printPod; `-o wide` adds the bracketed ones),
// one pod a row. The pod's name is the row's host and gives the role; its
// STATUS says what became of it (./podStates.ts podStatusAttrs), RESTARTS
// how often its containers restarted (`5 (2m ago)` since kubectl 1.24), and
// NODE the machine it ran on, kept as `nodeName` (analyzer/rules/placements.ts).
// Ages date nothing: the rows are undated.

import { LogKind } from "../../../domain/kinds.js";
import { roleOfName } from "../../inputs/pathIdentity.js";
import type { InputFormat } from "../format.js";
import { kubectlOutputOf } from "./columns.js";
import { podStatusAttrs } from "./podStates.js";
import { KubectlTableParser, type KubectlTable } from "./table.js";

const HEADER = /^(?:NAMESPACE\s+)?NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\b/;
const COLUMNS = ["NAMESPACE", "NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE", "NOMINATED NODE", "READINESS GATES"];
/** `3`, or `3 (2m ago)`: the restarts and, since kubectl 1.24, how long ago the last one was. */
const RESTARTS = /^(\d+)(?: \([^)]*\))?$/;

const PODS: KubectlTable = {
  header: HEADER,
  columns: COLUMNS,
  shown: "kubectl get pods' table (NAME READY STATUS RESTARTS AGE)",
  read(row, ev, ctx) {
    const name = row.get("NAME");
    const status = row.get("STATUS");
    if (!name || !status) return false;
    const restarts = Number(RESTARTS.exec(row.get("RESTARTS") ?? "")?.[1] ?? 0);
    ev.attrs = podStatusAttrs(status, restarts);
    ev.kind = ev.attrs.failureClass !== undefined ? LogKind.crash : LogKind.podEvent;
    const node = row.get("NODE");
    if (node && node !== "<none>") ev.attrs.nodeName = node;
    ev.host = name;
    const role = roleOfName(name) ?? ctx.role;
    if (role !== undefined) ev.role = role;
    return true;
  },
};

export const kubectlPods: InputFormat = {
  name: "kubectl-pods",
  detect: (head) => HEADER.test(kubectlOutputOf(head)),
  createParser: (ctx) => new KubectlTableParser(PODS, ctx),
};
