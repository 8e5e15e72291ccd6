// What the incident was made of (DESIGN.md "Inputs"): every input with what
// became of it — ingested in which format and wrapper, skipped or refused and
// why — its lines, events, unparsed lines and inferred times, and the most
// frequent shapes among the lines kvrewind did not understand, so that a user
// sees at once what was missed. Folded until opened; read when first opened.

import type { SourceRow } from "../../store/read/sources.js";
import { h, clear } from "./dom.js";
import { formatCount } from "./format.js";

/** Shapes shown per source (the server keeps the top 20). */
const SHAPES_SHOWN = 8;

export class SourcesPanel {
  readonly element: HTMLDetailsElement;
  private readonly body: HTMLElement;
  private loaded = false;

  constructor(
    private readonly load: () => Promise<SourceRow[]>,
    totals: { sources: number; unparsed?: number },
  ) {
    this.body = h("div", { class: "sources-body" });
    this.element = h(
      "details",
      { class: "sources-panel" },
      h("summary", {}, "Inputs", h("span", { class: "count" }, `${totals.sources}`)),
      this.body,
    ) as HTMLDetailsElement;
    this.element.addEventListener("toggle", () => {
      if (this.element.open && !this.loaded) void this.fill();
    });
  }

  private async fill(): Promise<void> {
    this.loaded = true;
    this.body.append(h("p", { class: "empty" }, "Reading…"));
    try {
      const sources = await this.load();
      clear(this.body);
      const notUnderstood = sources.reduce((n, s) => n + s.unparsed, 0);
      this.body.append(
        h("p", { class: "sources-total" }, `${formatCount(notUnderstood)} line(s) kept but not understood, in ${sources.filter((s) => s.unparsed > 0).length} file(s)`),
        h("ul", { class: "sources" }, ...sources.map((s) => sourceItem(s))),
      );
    } catch (e) {
      clear(this.body);
      this.body.append(h("p", { class: "empty" }, (e as Error).message));
      this.loaded = false;
    }
  }
}

function sourceItem(s: SourceRow): HTMLElement {
  const format = s.wrapper !== null ? `${s.format} in ${s.wrapper}` : s.format;
  const who = [s.host, s.role].filter((x) => x !== null).join(" ");
  const head = h(
    "div",
    { class: "source-head" },
    h("span", { class: `status ${s.status}` }, s.status === "complete" ? "read" : s.status),
    h("span", { class: "path", title: s.path }, s.path),
  );
  if (s.status !== "complete") return h("li", { class: "source" }, head, h("p", { class: "reason" }, s.reason ?? ""));
  const figures = [
    format,
    who,
    ...(s.pages > 0 ? [`${formatCount(s.pages)} pages`, `${formatCount(s.bytes)} B`, s.reason] : [`${formatCount(s.lines)} lines`, `${formatCount(s.events)} events`]),
    s.unparsed > 0 ? `${formatCount(s.unparsed)} not understood` : null,
    s.inferred > 0 ? `${formatCount(s.inferred)} inferred times` : null,
    s.errorCount > 0 ? `${formatCount(s.errorCount)} errors` : null,
  ].filter((x): x is string => x !== null && x !== "");
  return h(
    "li",
    { class: "source" },
    head,
    h("p", { class: "figures" }, figures.join(" · ")),
    s.timeOrigin !== null ? h("p", { class: "time-origin" }, `times: ${s.timeOrigin}`) : null,
    s.unparsedShapes.length > 0
      ? h(
          "table",
          { class: "shapes" },
          h("caption", {}, "not understood, by message shape"),
          ...s.unparsedShapes.slice(0, SHAPES_SHOWN).map((u) =>
            h(
              "tr",
              { title: u.example },
              h("td", { class: "n" }, formatCount(u.count)),
              h("td", { class: "shape" }, u.shape),
              h("td", { class: "line" }, u.line > 0 ? `line ${u.line}` : ""),
            ),
          ),
        )
      : null,
  );
}
