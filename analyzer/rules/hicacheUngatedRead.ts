// hicache-ungated-read: an index-K reader ran while a HiCache host→device load
// of its layer was still in progress, and its accessor did not wait for the
// layer (sglang #22811: the ragged accessors lacked `wait_until`;
// hicache-indexk-scheduler.md §1.2–§1.4).

import { at, detailOf, modelRule } from "./modelRule.js";

export const hicacheUngatedRead = modelRule({
  id: "hicache-ungated-read",
  needs: ["probe hicache.load / hicache.layer / hicache.wait", "probe kernel.read with its consumer slot", "config: version (which accessors wait)"],
  severity: "critical",
  title: (v, more) => `${detailOf(v, "accessor")} read ${detailOf(v, "buffer")} layer ${detailOf(v, "layer")} before its HiCache layer loaded${more ? ` (+${more} more)` : ""}`,
  explain: (v, [start, lastLayer, read], evidence) =>
    `Let HiCache load slot ${detailOf(v, "slot")} start copying ${detailOf(v, "layers")} layers host→device on ${v.rank ?? "a rank"} (${at(evidence, start)}; last layer completion seen: ${at(evidence, lastLayer)}). ` +
    `Then a reader of layer ${detailOf(v, "layer")} must wait for that layer's event (wait_until, §1.2–§1.3), ` +
    `but ${detailOf(v, "accessor")} read ${detailOf(v, "buffer")} page ${detailOf(v, "page")} at ${at(evidence, read)} with ${detailOf(v, "layersDone")}/${detailOf(v, "layers")} layers done, without waiting: ${v.message}.`,
  falsify: "Disable HiCache at the same load (expect no corrupted session), or run a build with #22811's waits in the ragged index-K accessors.",
  facts: () => ({ writer: "hicache" }),
});
