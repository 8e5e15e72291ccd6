// A sos report (sosreport/sos, the support bundle `sos report` makes of one
// machine, a .tar.xz by default) is one machine's, whatever folders it holds
// (`sos_commands/kernel/dmesg_-T`, `var/log/messages`). Its folder is named
// by sos's policy (sos/policies/__init__.py `get_archive_name`):
// `sosreport-{name}[-{label}][-{case}]-{YYYY-MM-DD}-{7 letters}` ("friendly",
// the default) or `sosreport-{name}[.{case}]-{YYYYmmddHHMMSS}` ("legacy"),
// `name` the machine's short hostname. A label or case id cannot be told
// from a hostname with dashes, so the name read here is provisional: what the
// report's own files say of their host (a syslog line's) is shared with the
// whole report afterwards (ingest/inputs/machines.ts shareFolderIdentity).

const FRIENDLY = /^sosreport-(.+)-\d{4}-\d\d-\d\d-[a-z]{7}$/;
const LEGACY = /^sosreport-([^.]+?)(?:\.[^-]*)?-\d{14}$/;

/** The host a sos report's folder names; undefined for any other folder. */
export function sosReportHost(folder: string): string | undefined {
  return (FRIENDLY.exec(folder) ?? LEGACY.exec(folder))?.[1];
}
