// "No write outside the intended directory": a file-writing property runs in a fresh temporary directory and, after
// the code under test has run, lists everything in it; whatever lies outside the place the code may write is a
// finding. Symbolic links are listed, not followed, so a link planted by the input cannot hide a write.
import { lstat, mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";

/** Creates a temporary directory, runs `body` in it and always removes it. */
export async function withSandbox<T>(body: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), "chaind-fuzz-"));
  try {
    return await body(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Every file, directory and link under `dir`, as paths relative to it with `/` separators, sorted. */
export async function listTree(dir: string): Promise<string[]> {
  const out: string[] = [];
  const visit = async (path: string): Promise<void> => {
    for (const name of await readdir(path)) {
      const child = join(path, name);
      out.push(relative(dir, child).split(sep).join("/"));
      if ((await lstat(child)).isDirectory()) await visit(child);
    }
  };
  await visit(dir);
  return out.sort();
}

/** The entries of `after` that are not in `before`: what the code under test created. */
export function created(before: readonly string[], after: readonly string[]): string[] {
  const old = new Set(before);
  return after.filter((path) => !old.has(path));
}
