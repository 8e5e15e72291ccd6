// The side list: ranked suspects first, then the findings by severity. The
// selected finding opens in place with its explanation, how to falsify it and
// its witness log lines, each a link to the event.

import { h, clear } from "./dom.js";
import { formatOffset } from "./format.js";
import type { Finding, FindingsAnswer, Suspect } from "./types.js";

export interface FindingsPanelCallbacks {
  onFinding(id: string): void;
  onWitness(seq: number): void;
}

export class FindingsPanel {
  readonly element: HTMLElement;
  private selected: string | null = null;

  constructor(
    private readonly data: FindingsAnswer,
    private readonly originUs: number,
    private readonly cb: FindingsPanelCallbacks,
  ) {
    this.element = h("aside", { class: "findings-panel" });
    this.render();
  }

  select(id: string | null): void {
    this.selected = id;
    this.render();
    this.element.querySelector(".finding.selected")?.scrollIntoView({ block: "nearest" });
  }

  private render(): void {
    clear(this.element);
    const { suspects, findings } = this.data;
    this.element.append(
      h("h2", {}, "Suspects", h("span", { class: "count" }, String(suspects.length))),
      suspects.length
        ? h("ol", { class: "suspects" }, ...suspects.map((s) => this.suspectItem(s)))
        : h("p", { class: "empty" }, "No suspect ranked."),
      h("h2", {}, "Findings", h("span", { class: "count" }, String(findings.length))),
      findings.length
        ? h("ul", { class: "findings" }, ...findings.map((f) => this.findingItem(f)))
        : h("p", { class: "empty" }, "No findings."),
    );
  }

  private suspectItem(s: Suspect): HTMLElement {
    const ids = s.body.findings ?? [];
    return h(
      "li",
      { class: "suspect", "data-rank": s.rank, "data-cause": s.cause },
      h(
        "button",
        { class: "suspect-head", onclick: () => ids[0] && this.cb.onFinding(ids[0]) },
        h("span", { class: "rank" }, `#${s.rank}`),
        h("span", { class: "cause" }, s.cause),
        h("span", { class: "confidence", title: "confidence" }, s.confidence.toFixed(2)),
      ),
      s.body.summary ? h("p", { class: "summary" }, s.body.summary) : null,
      ids.length
        ? h(
            "div",
            { class: "refs" },
            ...ids.map((id) => h("button", { class: `ref${id === this.selected ? " selected" : ""}`, onclick: () => this.cb.onFinding(id) }, id)),
          )
        : null,
    );
  }

  private findingItem(f: Finding): HTMLElement {
    const selected = f.id === this.selected;
    const item = h(
      "li",
      { class: `finding sev-${f.severity}${selected ? " selected" : ""}`, "data-finding": f.id },
      h(
        "button",
        { class: "finding-head", onclick: () => this.cb.onFinding(f.id) },
        h("span", { class: `sev sev-${f.severity}` }, f.severity),
        h("span", { class: "fid" }, f.id),
        h("span", { class: "rule" }, f.rule),
        f.verdict !== "violated" ? h("span", { class: "verdict" }, f.verdict) : null,
      ),
      h("div", { class: "title" }, f.title),
    );
    if (!selected) return item;
    const witness = f.body.witness ?? [];
    item.append(
      h(
        "div",
        { class: "finding-body" },
        f.tsUs !== null ? h("div", { class: "meta" }, `at ${formatOffset(f.tsUs - this.originUs, 1)}`, f.body.room ? ` · room ${f.body.room}` : "") : null,
        f.body.explanation ? h("p", { class: "explanation" }, f.body.explanation) : null,
        f.body.falsify ? h("p", { class: "falsify" }, h("b", {}, "Falsify: "), f.body.falsify) : null,
        witness.length ? h("div", { class: "witness-title" }, `Witness (${witness.length})`) : null,
        ...witness.map((w) =>
          h(
            "button",
            { class: "witness-line", "data-seq": w.seq, onclick: () => this.cb.onWitness(w.seq), title: `seq ${w.seq}` },
            h("span", { class: "where" }, `${w.source}:${w.line}`),
            h("code", {}, w.text),
            w.textLength ? h("span", { class: "cut-note" }, `… ${w.textLength - w.text.length} more characters: select the event to read on`) : null,
          ),
        ),
      ),
    );
    return item;
  }
}
