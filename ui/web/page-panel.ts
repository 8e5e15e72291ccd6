// A dumped page's bytes (issue 15): opened when the selected event is a
// page-dump record (a page-bytes finding's witness, or the record on the
// timeline), or from the state panel's dumped pages at the cursor. Its rows in hex and decoded (fp8 × scale, bf16) beside prefill's
// page of the same (room, buffer, layer, pos), differing rows highlighted,
// with the checksum and the diagnosis. Bytes are rendered as text.

import { append, clear, h } from "./dom.js";
import type { PageAnswer } from "./types.js";

/** Hex characters of a row shown ("xx " per byte): its first 8 bytes, so both pages fit side by side. */
const HEX_CHARS = 8 * 3 - 1;
const VALUES = 4;

type View = PageAnswer["page"];
type Row = View["rows"][number];

export class PagePanel {
  readonly element: HTMLElement;

  constructor() {
    this.element = h("section", { class: "page-panel panel", hidden: true });
  }

  show(answer: PageAnswer | null, message?: string): void {
    clear(this.element);
    this.element.hidden = answer === null && message === undefined;
    this.element.append(h("header", {}, h("h3", {}, "Page bytes")));
    if (!answer) {
      if (message) this.element.append(h("p", { class: "empty" }, message));
      return;
    }
    const v = answer.page;
    this.element.dataset["page"] = String(v.page.page);
    this.element.dataset["room"] = v.page.room;
    this.element.dataset["seq"] = String(v.page.seq);
    append(this.element, [
      h("p", { class: "page-side" }, `Room ${v.page.room} ${v.page.side} ${v.page.rank} page ${v.page.page}, pos ${v.page.pos}, layer ${v.page.layer}, ${v.page.dtype} (${v.page.bytes} B) — ${v.page.source}`),
      h("p", { class: "page-side" }, v.prefill ? `against prefill's page ${v.prefill.page} (${v.prefill.dtype}, ${v.prefill.bytes} B) — ${v.prefill.source}` : "No prefill page of the same (room, buffer, layer, pos) was dumped."),
      checksum(v),
      diagnosis(v),
      rowsTable(v),
    ]);
  }
}

function checksum(v: View): HTMLElement | null {
  if (!v.checksum) return null;
  const ok = v.checksum.recomputed === v.checksum.stated;
  return h("p", { class: ok ? "page-checksum" : "page-checksum error" }, ok ? `${v.checksum.algo} ${v.checksum.stated}: agrees with the bytes` : `${v.checksum.algo} ${v.checksum.stated} stated, but the bytes hash ${v.checksum.recomputed}`);
}

function diagnosis(v: View): HTMLElement {
  const d = v.diagnosis;
  if (!d) return h("p", { class: "page-diagnosis" }, v.prefill ? "Equal to prefill's page byte for byte." : "Nothing to compare with.");
  return h(
    "p",
    { class: d.corruption ? "page-diagnosis corrupt" : "page-diagnosis" },
    h("b", { class: "mechanism" }, d.mechanism),
    d.corruption ? ": " : " (precision, not corruption): ",
    d.detail,
  );
}

function rowText(r: Row | undefined): string {
  if (!r) return "";
  const scale = r.scale !== undefined ? ` ×${Number(r.scale.toPrecision(5))}` : "";
  return `${r.hex.slice(0, HEX_CHARS)} … [${r.values.slice(0, VALUES).join(", ")}, …]${scale}`;
}

function rowsTable(v: View): HTMLElement {
  if (v.rows.length === 0) return h("p", { class: "empty" }, `${v.page.bytes} B is not a ${v.page.dtype} page: no rows to decode.`);
  return h(
    "table",
    { class: "page-rows" },
    h("tr", {}, h("th", {}, "row"), h("th", {}, "this page"), h("th", {}, "prefill")),
    ...v.rows.map((r) =>
      h("tr", { class: r.differs ? "differs" : "", "data-row": r.row }, h("td", {}, String(r.row)), h("td", { class: "bytes" }, rowText(r)), h("td", { class: "bytes" }, rowText(v.prefillRows[r.row]))),
    ),
  );
}
