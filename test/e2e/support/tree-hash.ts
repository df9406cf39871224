// Fingerprints of a directory tree, to prove that a command left a node's data exactly as it was.
import { createHash } from "node:crypto";
import { readdir, readFile, stat } from "node:fs/promises";
import { join, relative } from "node:path";

/** Relative path → `<size>:<sha256>` of every regular file under `root` (sorted by path). */
export async function hashTree(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (dir: string): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile()) {
        const bytes = await readFile(path);
        out[relative(root, path)] = `${(await stat(path)).size}:${createHash("sha256").update(bytes).digest("hex")}`;
      } else out[relative(root, path)] = "not a regular file";
    }
  };
  await walk(root);
  return out;
}
