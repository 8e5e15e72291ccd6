// The keyboard: W/S zoom in and out, A/D pan, [ and ] step through events,
// / finds, F fits, G folds empty time, L shows names, Esc clears, ? lists the
// keys. Keys act wherever the focus is, except while typing in a field.

import { h } from "./dom.js";

export interface KeyActions {
  zoom(factor: number): void;
  pan(share: number): void;
  step(dir: "prev" | "next"): void;
  find(): void;
  fit(): void;
  toggleFolds(): void;
  toggleLabels(): void;
  escape(): void;
}

const KEYS: [string, string][] = [
  ["W / S", "zoom in / out"],
  ["A / D", "pan back / forward in time"],
  ["[ / ]  or  ← / →", "step to the previous / next event (of the scope chosen in the state panel)"],
  ["/", "find a room, rid, rank, kind or text"],
  ["F", "fit the whole incident"],
  ["G", "fold / unfold stretches with no event"],
  ["L", "show / hide names on marks"],
  ["Tab", "move between lanes, findings and panels; Enter or Space opens a lane group"],
  ["P  or  Shift+click", "on a rank's label: pin it to the top (again: unpin)"],
  ["Esc", "clear the selected finding, close this list"],
  ["?", "show this list"],
];

const ZOOM_STEP = 1.6;
const PAN_STEP = 0.2;

/** The dialog that lists the keys. */
export function keysDialog(): HTMLDialogElement {
  const dialog = h(
    "dialog",
    { class: "keys-dialog", "aria-label": "keyboard shortcuts" },
    h("h2", {}, "Keys"),
    h("table", {}, ...KEYS.map(([k, what]) => h("tr", {}, h("th", {}, h("kbd", {}, k)), h("td", {}, what)))),
    h("form", { method: "dialog" }, h("button", { class: "close" }, "Close")),
  );
  return dialog;
}

export function bindKeys(actions: KeyActions, dialog: HTMLDialogElement): () => void {
  const onKey = (ev: KeyboardEvent) => {
    const t = ev.target;
    if (t instanceof HTMLInputElement || t instanceof HTMLSelectElement || t instanceof HTMLTextAreaElement) return;
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const key = ev.key.length === 1 ? ev.key.toLowerCase() : ev.key;
    const act: Record<string, () => void> = {
      w: () => actions.zoom(ZOOM_STEP),
      s: () => actions.zoom(1 / ZOOM_STEP),
      a: () => actions.pan(-PAN_STEP),
      d: () => actions.pan(PAN_STEP),
      "[": () => actions.step("prev"),
      ArrowLeft: () => actions.step("prev"),
      "]": () => actions.step("next"),
      ArrowRight: () => actions.step("next"),
      "/": () => actions.find(),
      f: () => actions.fit(),
      g: () => actions.toggleFolds(),
      l: () => actions.toggleLabels(),
      "?": () => (dialog.open ? dialog.close() : dialog.showModal()),
      Escape: () => actions.escape(),
    };
    const run = act[key];
    // With the list open, Escape is the dialog's own (it closes).
    if (!run || (dialog.open && key !== "?")) return;
    ev.preventDefault();
    run();
  };
  document.addEventListener("keydown", onKey);
  return () => document.removeEventListener("keydown", onKey);
}
