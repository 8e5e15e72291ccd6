// What a person drops on the page, as files with their paths: a folder
// dragged in is walked (the File and Directory Entries API), so its files keep
// their relative paths (`bundle/p0/prefill-tp0.log`) as the folder picker's
// do; dropped files and archives stand as they are.

export interface NamedFile {
  file: File;
  name: string;
}

function readEntries(dir: FileSystemDirectoryEntry): Promise<FileSystemEntry[]> {
  const reader = dir.createReader();
  const all: FileSystemEntry[] = [];
  // readEntries answers in batches until it answers with none.
  return new Promise((resolve, reject) => {
    const next = () =>
      reader.readEntries((batch) => {
        if (batch.length === 0) resolve(all);
        else {
          all.push(...batch);
          next();
        }
      }, reject);
    next();
  });
}

async function walk(entry: FileSystemEntry, path: string, out: NamedFile[]): Promise<void> {
  if (entry.isFile) {
    const file = await new Promise<File>((resolve, reject) => (entry as FileSystemFileEntry).file(resolve, reject));
    out.push({ file, name: path });
  } else if (entry.isDirectory) {
    const children = await readEntries(entry as FileSystemDirectoryEntry);
    children.sort((a, b) => a.name.localeCompare(b.name));
    for (const child of children) await walk(child, `${path}/${child.name}`, out);
  }
}

/** Every file of a drop, folders walked. */
export async function droppedFiles(data: DataTransfer): Promise<NamedFile[]> {
  // Entries must be taken while the drop event is being handled.
  const entries = [...data.items].map((item) => item.webkitGetAsEntry()).filter((e): e is FileSystemEntry => e !== null);
  if (entries.length === 0) return [...data.files].map((file) => ({ file, name: file.name }));
  const out: NamedFile[] = [];
  for (const entry of entries) await walk(entry, entry.name, out);
  return out;
}
