// `kvrewind replay --at … --page N` as text: the dumped page at the cursor,
// the prefill page beside it row by row (differing rows marked), the diagnosis.

import type { PageRow, PageSideView, PageView } from "../../analyzer/pages/pageView.js";
import { compactRows } from "../../analyzer/rules/pageBytes.js";

const HEX_CHARS = 16 * 3 - 1;
const VALUES = 4;

function side(s: PageSideView): string {
  return `room ${s.room} ${s.side} ${s.rank} page ${s.page} (pos ${s.pos}, layer ${s.layer}, ${s.dtype}, ${s.bytes} B) seq ${s.seq} ${s.source}`;
}

function row(r: PageRow | undefined): string {
  if (!r) return "";
  const scale = r.scale !== undefined ? ` ×${Number(r.scale.toPrecision(5))}` : "";
  return `${r.hex.slice(0, HEX_CHARS)} … [${r.values.slice(0, VALUES).join(", ")}, …]${scale}`;
}

export function pageText(v: PageView): string {
  const lines = [`page  ${side(v.page)}`];
  lines.push(v.prefill ? `vs    ${side(v.prefill)}` : "vs    no prefill page of the same (room, buffer, layer, pos) was dumped");
  if (v.checksum) {
    lines.push(v.checksum.recomputed === v.checksum.stated ? `checksum ${v.checksum.algo} ${v.checksum.stated}: agrees with the bytes` : `checksum ${v.checksum.algo} ${v.checksum.stated} stated, the bytes hash ${v.checksum.recomputed}`);
  }
  const d = v.diagnosis;
  if (d) lines.push(`diagnosis: ${d.mechanism}${d.corruption ? "" : " (precision, not corruption)"}: ${d.detail}${d.rows.length ? `; rows ${compactRows(d.rows)} differ` : ""}`);
  else if (v.prefill) lines.push("diagnosis: none needed, the page equals prefill's byte for byte");
  for (const r of v.rows) lines.push(`${r.differs ? "≠" : " "} ${String(r.row).padStart(2)}  ${row(r)}${v.prefillRows.length ? `  | ${row(v.prefillRows[r.row])}` : ""}`);
  if (v.rows.length === 0) lines.push(`(${v.page.bytes} B is not a ${v.page.dtype} page: no rows to decode)`);
  return lines.join("\n") + "\n";
}
