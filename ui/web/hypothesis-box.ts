// The hypothesis box beside the findings (docs/hypotheses.md): type a
// property or pick a named one, see its verdict with counts and witness
// lines (each a link to its event), and its violations as flags on the
// timeline; below, folded, the ledger of every named hypothesis's verdict.
// The hypothesis is kept in the URL (`hyp=`).

import type { FindingGroup } from "../view/findingGroups.js";
import { api } from "./api.js";
import { h, clear } from "./dom.js";
import type { Finding, HypothesisCheck, HypothesisLedger, HypothesisVerdictView, PlacedViolation } from "./types.js";

export interface HypothesisBoxCallbacks {
  /** The violations to flag on the timeline (none to clear them). */
  onViolations(placed: PlacedViolation[]): void;
  onWitness(seq: number): void;
  /** The hypothesis now shown, for the URL ("" when cleared). */
  onHypothesis(text: string): void;
}

const VERDICT_WORD: Record<string, string> = { violated: "violated", consistent: "holds", undetermined: "undetermined" };

export class HypothesisBox {
  readonly element: HTMLElement;
  private readonly input: HTMLInputElement;
  private readonly result = h("div", { class: "hyp-result", "aria-live": "polite" });
  private readonly ledger = h("details", { class: "hyp-ledger" });

  constructor(
    private readonly id: string,
    private readonly cb: HypothesisBoxCallbacks,
  ) {
    this.input = h("input", {
      class: "hyp-input",
      type: "text",
      list: "hyp-names",
      placeholder: "every index_k kernel.read on decode comes after the room's last kv.notify",
      "aria-label": "hypothesis: a property or a named one",
      // Typing here is not the page's keyboard shortcuts.
      onkeydown: (e: Event) => {
        e.stopPropagation();
        if ((e as KeyboardEvent).key === "Enter") void this.check(this.input.value);
      },
    });
    const form = h("div", { class: "hyp-form" }, this.input, h("button", { class: "hyp-check", onclick: () => void this.check(this.input.value) }, "Check"));
    this.element = h("section", { class: "hypothesis-box", "aria-label": "hypotheses" }, h("h2", {}, "Hypothesis"), form, h("datalist", { id: "hyp-names" }), this.result, this.ledger);
    void this.loadLedger();
  }

  /** Checks a property or a named hypothesis; an empty text clears the box. */
  async check(text: string): Promise<void> {
    const t = text.trim();
    this.input.value = t;
    this.cb.onHypothesis(t);
    clear(this.result);
    if (!t) return this.cb.onViolations([]);
    this.result.append(h("p", { class: "hyp-busy" }, "checking…"));
    try {
      const answer: HypothesisCheck = await api.check(this.id, t);
      clear(this.result);
      this.result.append(...verdictView(answer.verdict, (seq) => this.cb.onWitness(seq)));
      this.cb.onViolations(answer.placed);
    } catch (err) {
      clear(this.result);
      this.result.append(h("p", { class: "hyp-error", role: "alert" }, (err as Error).message));
      this.cb.onViolations([]);
    }
  }

  private async loadLedger(): Promise<void> {
    let answer: HypothesisLedger;
    try {
      answer = await api.hypotheses(this.id);
    } catch {
      return;
    }
    const names = this.element.querySelector("datalist")!;
    for (const x of answer.library) names.append(h("option", { value: x.name }, x.statement));
    const counts = (v: HypothesisVerdictView) => (v.verdict === "undetermined" ? v.missing.join("; ") : `${v.violated}/${v.checked}`);
    this.ledger.append(
      h("summary", {}, `Hypotheses tested (${answer.ledger.length})`),
      h(
        "ul",
        {},
        ...answer.ledger.map((v) =>
          h(
            "li",
            { class: `hyp-${v.verdict}`, "data-hypothesis": v.name ?? "" },
            h("button", { class: "link", title: v.statement ?? v.property, onclick: () => void this.check(v.name ?? v.property) }, v.name ?? v.property),
            ` ${VERDICT_WORD[v.verdict]} · ${counts(v)}`,
          ),
        ),
      ),
    );
  }
}

function verdictView(v: HypothesisVerdictView, onWitness: (seq: number) => void): HTMLElement[] {
  const rate = v.rate === null ? "" : ` (${(v.rate * 100).toFixed(1)}%)`;
  const out: HTMLElement[] = [
    h("p", { class: `hyp-verdict hyp-${v.verdict}` }, h("strong", {}, VERDICT_WORD[v.verdict] ?? v.verdict), ` · ${v.violated} of ${v.checked} instance(s) violated${rate}`),
    h("p", { class: "hyp-property" }, v.property),
  ];
  if (v.verdict !== "violated") out.push(h("p", { class: "hyp-explanation" }, v.explanation));
  if (v.witnesses.length) {
    const line = (w: { seq: number; source: string; line: number; text: string }) =>
      h("button", { class: "link hyp-witness", "data-seq": String(w.seq), title: w.text, onclick: () => onWitness(w.seq) }, `${w.source}:${w.line}`);
    out.push(h("ul", { class: "hyp-witnesses" }, ...v.witnesses.map((w) => h("li", {}, h("span", { class: "hyp-why" }, w.why), " ", line(w.subject), ...(w.other ? [" ↔ ", line(w.other)] : [])))));
  }
  return out;
}

/** Flag ids of violations: `H1`, `H2`, … (findings are `F…`). */
export const VIOLATION_FLAG = /^H(\d+)$/;

/** The violations as flags the timeline draws like findings' (ui/web/flags.ts), one per witness. */
export function violationFlags(placed: readonly PlacedViolation[]): FindingGroup[] {
  return placed.map((p, i) => {
    const lead = { id: `H${i + 1}`, rule: "hypothesis", severity: "hypothesis", verdict: "violated", title: p.why, tsUs: p.tsUs, placed: [{ seq: p.seq, tsUs: p.tsUs, lane: p.lane }] } as unknown as Finding;
    return { lead, members: [lead], rule: "hypothesis", severity: "hypothesis", verdict: "violated", rooms: [], count: 1, citedBy: [] };
  });
}
