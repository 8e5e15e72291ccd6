// Opening an incident that is still being ingested or analyzed (a link
// followed right after an upload, a reload during a re-analysis): the page
// says what the background job is doing, follows its progress, and opens
// the incident once it is ready, instead of failing with "is ingesting".
// As soon as the job has stored its findings (before the timeline is
// indexed, ui/server/pipeline.ts), the page shows the suspects and findings;
// what the reader picks there (a finding, a witness event, a room) goes into
// the address bar, and the incident opens on it when the timeline is ready.

import { api } from "./api.js";
import { h } from "./dom.js";
import { FindingsPanel } from "./findings-panel.js";
import { groupFindings } from "../view/findingGroups.js";
import type { IncidentRecord } from "./types.js";
import { readUrl, writeUrl, type ViewState } from "./url.js";

const POLL_MS = 1000;

/** Runs `open` once the incident is ready; until then shows its progress, and its findings once stored. Rejects when the job failed or the incident is gone. */
export async function whenReady(root: HTMLElement, id: string, open: () => Promise<void>): Promise<void> {
  let findingsShown = false;
  for (let shown = false; ; shown = true) {
    const record = await api.incident(id);
    if (record.status === "ready") return open();
    if (record.status === "failed") throw new Error(`its ingest or analysis failed: ${record.error ?? "no reason given"}`);
    if (!shown) root.replaceChildren(waitingPage(id));
    showProgress(root, record);
    if (!findingsShown && record.status === "analyzing" && record.findingsReady) findingsShown = await showFindings(root, id, record);
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

function waitingPage(id: string): HTMLElement {
  return h(
    "main",
    { class: "incident-list incident-wait" },
    h("h1", {}, `Incident '${id}'`),
    h("p", { class: "wait-status", role: "status" }, ""),
    h("progress", { class: "upload-progress", max: 100 }),
    h("p", {}, "It opens here as soon as it is ready. ", h("a", { href: "./" }, "← incidents")),
  );
}

function showProgress(root: HTMLElement, record: IncidentRecord): void {
  const status = root.querySelector(".wait-status");
  const bar = root.querySelector<HTMLProgressElement>(".incident-wait progress");
  const p = record.progress;
  if (status) status.textContent = `${record.status === "queued" ? "Waiting for its turn" : `Still ${record.status}`}${p ? `: ${p.step}${p.percent !== null ? ` (${p.percent}%)` : ""}` : ""}…`;
  if (bar) {
    if (p?.percent !== null && p?.percent !== undefined) bar.value = p.percent;
    else bar.removeAttribute("value");
  }
}

/** The stored suspects and findings under the progress; false when they could not be read yet (tried again at the next poll). */
async function showFindings(root: HTMLElement, id: string, record: IncidentRecord): Promise<boolean> {
  const page = root.querySelector(".incident-wait");
  if (!page) return false;
  const answer = await api.findings(id).catch(() => null);
  if (answer === null) return false;
  const note = h("p", { class: "early-note" }, "The timeline is still being indexed: what you pick here opens with it.");
  const remember = (change: Partial<ViewState>, said: string): void => {
    writeUrl({ ...readUrl(), ...change });
    note.textContent = said;
  };
  const panel: FindingsPanel = new FindingsPanel(groupFindings(answer.findings, answer.suspects), answer.suspects, record.summary?.firstTsUs ?? 0, {
    onFinding: (fid) => {
      panel.select(fid);
      remember({ finding: fid }, `The timeline opens on ${fid} when it is ready.`);
    },
    onWitness: (seq) => remember({ sel: seq }, `The timeline opens on event ${seq} when it is ready.`),
    onRoom: (room) => remember({ roomText: room }, `The timeline opens with room ${room} in the state panel when it is ready.`),
  });
  page.append(note, panel.element);
  return true;
}
