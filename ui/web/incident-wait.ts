// Opening an incident that is still being ingested or analyzed (a link
// followed right after an upload, a reload during a re-analysis): the page
// says what the background job is doing, follows its progress, and opens
// the incident once it is ready, instead of failing with "is ingesting".

import { api } from "./api.js";
import { h } from "./dom.js";
import type { IncidentRecord } from "./types.js";

const POLL_MS = 1000;

/** Runs `open` once the incident is ready; until then shows its progress. Rejects when the job failed or the incident is gone. */
export async function whenReady(root: HTMLElement, id: string, open: () => Promise<void>): Promise<void> {
  for (let shown = false; ; shown = true) {
    const record = await api.incident(id);
    if (record.status === "ready") return open();
    if (record.status === "failed") throw new Error(`its ingest or analysis failed: ${record.error ?? "no reason given"}`);
    if (!shown) root.replaceChildren(waitingPage(id));
    showProgress(root, record);
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
