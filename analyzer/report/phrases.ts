// Counts in words, shared by the reports and the ingest summary, so that a
// count of one reads "1 host" and no host reads "host unknown", not "0 host(s)".

/** Host names spelled out before "…". */
const SHOWN_HOSTS = 8;

/** "1,234" in the en-US grouping the reports use. */
export function count(n: number): string {
  return n.toLocaleString("en-US");
}

/** "1 rank", "32 ranks". */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${count(n)} ${n === 1 ? one : many}`;
}

/** "4 hosts (d0, d1, p0, p1)", "1 host (d0)", or "host unknown" when no record names one. */
export function hostsPhrase(hosts: readonly string[]): string {
  if (hosts.length === 0) return "host unknown";
  const names = hosts.length > SHOWN_HOSTS ? `${hosts.slice(0, SHOWN_HOSTS).join(", ")}, …` : hosts.join(", ");
  return `${plural(hosts.length, "host")} (${names})`;
}
