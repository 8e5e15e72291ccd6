// What an archive's or a compressed file's name ends with: the ingest unpacks
// an archive into a folder named without it (ingest/inputs/archive.ts), and the
// server and the page name an uploaded incident the same way. What a file is
// is told by its content; only the name shown is cut here.

const ARCHIVE_SUFFIX = /\.(?:tar\.gz|tgz|tar\.zst|tzst|tar\.xz|txz|tar|zip|gz|zst|xz)$/i;

/** A name without its archive or compression extension (`node-a.tar.zst` → `node-a`); the name itself when nothing is left. */
export function archiveStem(name: string): string {
  return name.replace(ARCHIVE_SUFFIX, "") || name;
}
