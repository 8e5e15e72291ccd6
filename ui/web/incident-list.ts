// The incident list and the upload form: files, a folder (picked or dropped,
// its files' paths kept), or archives (.tar.gz, .tgz, .tar.zst, .tar.xz, .tar, .zip). Each
// incident can be analyzed again or deleted. While any incident is still
// being ingested or analyzed the list refreshes itself.

import { api, upload } from "./api.js";
import { archiveStem } from "../../domain/archiveNames.js";
import { h, clear } from "./dom.js";
import { droppedFiles, type NamedFile } from "./dropped.js";
import { formatBytes } from "../../domain/byteSize.js";
import { formatCount, formatDuration } from "./format.js";
import type { IncidentRecord } from "./types.js";

const POLL_MS = 1000;

export function renderIncidentList(root: HTMLElement, open: (id: string) => void): void {
  const list = h("tbody", {});
  const status = h("div", { class: "upload-status", role: "status" });
  const bar = h("progress", { class: "upload-progress", max: 1, value: 0, hidden: true });
  const filesInput = h("input", { type: "file", multiple: true, id: "upload-files", class: "visually-hidden" });
  const dirInput = h("input", { type: "file", id: "upload-dir", class: "visually-hidden" });
  dirInput.setAttribute("webkitdirectory", "");
  const drop = h(
    "div",
    { class: "dropzone" },
    h("p", {}, "Drop an incident bundle here — every rank's logs, probe JSONL and checksum dumps: a folder, files, or archives (.tar.gz, .tgz, .tar.zst, .tar.xz, .tar, .zip; archives of archives too)."),
    h(
      "div",
      { class: "upload-buttons" },
      h("label", { for: "upload-files", class: "button" }, "Choose files…"),
      h("label", { for: "upload-dir", class: "button" }, "Choose a folder…"),
      filesInput,
      dirInput,
    ),
    bar,
    status,
  );

  let timer: number | undefined;
  /** The incident the last upload made: the status line follows it until it is ready or failed. */
  let uploaded: string | null = null;
  const follow = (incidents: IncidentRecord[]) => {
    const i = incidents.find((x) => x.id === uploaded);
    if (!i || (i.status !== "ready" && i.status !== "failed")) return;
    uploaded = null;
    status.className = `upload-status${i.status === "failed" ? " error" : ""}`;
    status.replaceChildren(
      ...(i.status === "ready"
        ? [`'${i.id}' is ready: `, h("a", { href: `?incident=${encodeURIComponent(i.id)}`, onclick: (ev: Event) => (ev.preventDefault(), open(i.id)) }, `open ${i.name}`), "."]
        : [`'${i.id}' could not be read: ${i.error ?? "no reason given"}`]),
    );
  };
  const refresh = async () => {
    window.clearTimeout(timer);
    try {
      const incidents = await api.incidents();
      follow(incidents);
      clear(list);
      list.append(...incidents.map((i) => incidentRow(i, open, act)));
      if (!incidents.length) {
        list.append(h("tr", {}, h("td", { colspan: 8, class: "empty" }, "No incidents yet: upload one above, or start `kvrewind demo` (what `npm start` runs) to open the bundled example incidents.")));
      }
      if (incidents.some((i) => i.status !== "ready" && i.status !== "failed")) timer = window.setTimeout(refresh, POLL_MS);
    } catch (err) {
      status.textContent = `Could not list incidents: ${(err as Error).message}`;
    }
  };

  const act = async (what: "delete" | "reanalyze", i: IncidentRecord) => {
    if (what === "delete" && !window.confirm(`Delete incident '${i.name}' (${i.id}) and its files?`)) return;
    try {
      await (what === "delete" ? api.deleteIncident(i.id) : api.reanalyze(i.id));
      status.className = "upload-status";
      status.textContent = what === "delete" ? `Deleted '${i.id}'.` : `Analyzing '${i.id}' again in the background.`;
    } catch (err) {
      status.className = "upload-status error";
      status.textContent = (err as Error).message;
    }
    await refresh();
  };

  const send = async (files: NamedFile[]) => {
    if (!files.length) return;
    bar.hidden = false;
    bar.value = 0;
    status.className = "upload-status";
    status.textContent = `Uploading ${files.length} file${files.length > 1 ? "s" : ""}…`;
    try {
      const { incident, sharesNameWith } = await upload(files, incidentName(files.map((f) => f.name)), (sent, total) => {
        bar.value = total ? sent / total : 0;
        status.textContent = `Uploading… ${formatBytes(sent)} of ${formatBytes(total)}`;
      });
      uploaded = incident.id;
      const renamed = sharesNameWith ? ` ('${sharesNameWith}' exists already)` : "";
      status.textContent = `Uploaded as '${incident.id}'${renamed}: ingesting and analyzing in the background; it opens from here when ready.`;
    } catch (err) {
      status.className = "upload-status error";
      status.textContent = (err as Error).message;
    } finally {
      bar.hidden = true;
      await refresh();
    }
  };

  filesInput.addEventListener("change", () => void send([...(filesInput.files ?? [])].map((file) => ({ file, name: file.name }))));
  dirInput.addEventListener("change", () => void send([...(dirInput.files ?? [])].map((file) => ({ file, name: file.webkitRelativePath || file.name }))));
  drop.addEventListener("dragover", (ev) => {
    ev.preventDefault();
    drop.classList.add("over");
  });
  drop.addEventListener("dragleave", () => drop.classList.remove("over"));
  drop.addEventListener("drop", (ev) => {
    ev.preventDefault();
    drop.classList.remove("over");
    if (ev.dataTransfer) void droppedFiles(ev.dataTransfer).then(send, (err: Error) => (status.textContent = `Could not read the drop: ${err.message}`));
  });

  clear(root);
  root.append(
    h(
      "main",
      { class: "incident-list" },
      h("h1", {}, "kvrewind"),
      h(
        "p",
        { class: "intro" },
        "Post-incident analysis of prefill/decode-disaggregated LLM serving (SGLang with NIXL or Mooncake): every rank's logs, metrics, traces, " +
          "crash and Flight Recorder dumps and probe records become one ordered history, replayed against a reference model of the KV-transfer path. " +
          "Open an incident to see its ranked root-cause suspects, each with the lines that prove it and the experiment that would refute it, on a timeline you can rewind.",
      ),
      drop,
      h("h2", {}, "Incidents"),
      h(
        "table",
        { class: "incidents" },
        h(
          "thead",
          {},
          h("tr", {}, ...["incident", "status", "size", "ranks", "events", "span", "top suspect"].map((c) => h("th", {}, c)), h("th", {}, h("span", { class: "visually-hidden" }, "actions"))),
        ),
        list,
      ),
    ),
  );
  void refresh();
}

function incidentRow(i: IncidentRecord, open: (id: string) => void, act: (what: "delete" | "reanalyze", i: IncidentRecord) => Promise<void>): HTMLElement {
  const s = i.summary;
  const ready = i.status === "ready";
  const name = ready ? h("a", { href: `?incident=${encodeURIComponent(i.id)}`, onclick: (ev: Event) => (ev.preventDefault(), open(i.id)) }, i.name) : h("span", {}, i.name);
  const progress = i.progress ? ` ${i.progress.percent !== null ? `${i.progress.percent}% · ` : ""}${i.progress.step}` : "";
  return h(
    "tr",
    { class: `incident status-${i.status}`, "data-id": i.id, "data-status": i.status },
    h("td", {}, name, h("div", { class: "sub" }, `${i.id} · ${i.inputFiles} file${i.inputFiles === 1 ? "" : "s"} · ${new Date(i.createdAt).toISOString().slice(0, 16).replace("T", " ")}`)),
    h(
      "td",
      {},
      h("span", { class: `status-badge ${i.status}` }, `${i.status}${progress}`),
      i.error ? errorText(i.error) : null,
      i.warnings?.length
        ? h(
            "details",
            { class: "warnings" },
            h("summary", {}, `${i.warnings.length} input${i.warnings.length > 1 ? "s" : ""} not read`),
            h("ul", {}, ...i.warnings.map((w) => h("li", {}, w))),
          )
        : null,
    ),
    h("td", { class: "num" }, formatBytes(i.inputBytes)),
    h("td", { class: "ranks", title: s?.ranks.join(", ") ?? "" }, s ? `${s.ranks.length}` : ""),
    h("td", { class: "num" }, s ? formatCount(s.events) : ""),
    h("td", { class: "num" }, s && s.firstTsUs !== null && s.lastTsUs !== null ? formatDuration(s.lastTsUs - s.firstTsUs) : ""),
    h(
      "td",
      { class: "top-suspect" },
      s?.topSuspect ? h("span", { class: "cause" }, s.topSuspect.cause) : ready ? h("span", { class: "none" }, "none") : null,
      s?.topSuspect ? h("span", { class: "confidence" }, ` ${s.topSuspect.confidence.toFixed(2)}`) : null,
      s?.topSuspect?.summary ? h("div", { class: "sub" }, s.topSuspect.summary) : null,
    ),
    h(
      "td",
      { class: "actions" },
      // A failed incident's inputs gave nothing to analyze: running it again cannot help, uploading a new bundle can.
      h(
        "button",
        { class: "reanalyze", disabled: !ready, title: i.status === "failed" ? "it failed: delete it and upload the bundle again" : "ingest and analyze again", onclick: () => void act("reanalyze", i) },
        "Re-analyze",
      ),
      h("button", { class: "delete", title: "delete the incident and its files", onclick: () => void act("delete", i) }, "Delete"),
    ),
  );
}

/** A failure's reason: its first line in the row, the rest behind a click (a long one made the row tall). */
function errorText(error: string): HTMLElement {
  const [head = "", ...rest] = error.split("\n");
  if (head.length <= ERROR_HEAD && rest.length === 0) return h("div", { class: "error" }, head);
  const short = head.length > ERROR_HEAD ? `${head.slice(0, ERROR_HEAD)}…` : head;
  return h("details", { class: "error" }, h("summary", {}, short), h("pre", {}, error));
}

const ERROR_HEAD = 60;

/** The uploaded folder's name, or the single file's, as the incident's name. */
function incidentName(names: string[]): string {
  const first = names[0] ?? "upload";
  const top = first.split("/")[0]!;
  const name = names.length === 1 || names.every((n) => n.startsWith(`${top}/`)) ? top : first;
  return (
    archiveStem(name)
      .replace(/[\u0000-\u001f<>]/g, "")
      .slice(0, 120) || "upload"
  );
}
