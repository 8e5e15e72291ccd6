// The bar between the timeline and the panels below it: dragged (or moved
// with the arrow keys) it gives the panels — the selected event, the state
// at the cursor — more or less of the window's height.

import { h } from "./dom.js";

const MIN_PX = 120;
const KEY_STEP_PX = 24;

/** A separator for the top edge of `panels`; the height is the grid row `--bottom-height` of `view`. */
export function panelSplitter(view: HTMLElement, panels: HTMLElement): HTMLElement {
  const bar = h("div", { class: "splitter", role: "separator", "aria-orientation": "horizontal", "aria-label": "resize the panels below the timeline", tabindex: 0 });
  const maxPx = (): number => window.innerHeight - 38 - 220;
  // A focusable separator states its value (WAI-ARIA): the panels' height in pixels, within its bounds.
  const state = (height: number): void => {
    bar.setAttribute("aria-valuenow", String(Math.round(height)));
    bar.setAttribute("aria-valuemin", String(MIN_PX));
    bar.setAttribute("aria-valuemax", String(Math.max(MIN_PX, maxPx())));
  };
  const setHeight = (px: number): void => {
    const height = Math.round(Math.max(MIN_PX, Math.min(maxPx(), px)));
    view.style.setProperty("--bottom-height", `${height}px`);
    state(height);
  };
  state(window.innerHeight / 3);
  requestAnimationFrame(() => state(panels.getBoundingClientRect().height));
  bar.addEventListener("pointerdown", (down: PointerEvent) => {
    down.preventDefault();
    bar.setPointerCapture(down.pointerId);
    const start = panels.getBoundingClientRect().height;
    const move = (ev: PointerEvent): void => setHeight(start + (down.clientY - ev.clientY));
    const up = (): void => {
      bar.removeEventListener("pointermove", move);
      bar.removeEventListener("pointerup", up);
    };
    bar.addEventListener("pointermove", move);
    bar.addEventListener("pointerup", up);
  });
  bar.addEventListener("keydown", (ev: KeyboardEvent) => {
    if (ev.key !== "ArrowUp" && ev.key !== "ArrowDown") return;
    ev.preventDefault();
    ev.stopPropagation();
    setHeight(panels.getBoundingClientRect().height + (ev.key === "ArrowUp" ? KEY_STEP_PX : -KEY_STEP_PX));
  });
  return bar;
}
