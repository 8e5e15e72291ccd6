// The page: the incident list, or one incident when the URL names it.

import "./style.css";

import { byId, h } from "./dom.js";
import { openIncident } from "./incident-view.js";
import { renderIncidentList } from "./incident-list.js";
import { readUrl } from "./url.js";
import { whenReady } from "./incident-wait.js";

const root = byId("app");

function route(): void {
  const view = readUrl();
  if (view.incident) {
    const incident = view.incident;
    // The view as the address bar says when the incident opens: the waiting page writes what was picked there.
    const open = (): Promise<void> => openIncident(root, { ...readUrl(), incident });
    whenReady(root, incident, open).catch((err: Error) => {
      root.replaceChildren(h("main", { class: "incident-list" }, h("p", { class: "error" }, `Could not open '${incident}': ${err.message}`), h("a", { href: "./" }, "← incidents")));
    });
  } else {
    renderIncidentList(root, (id) => {
      history.pushState(null, "", `?incident=${encodeURIComponent(id)}`);
      route();
    });
  }
}

window.addEventListener("popstate", route);
route();
