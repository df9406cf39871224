// Whether one path lies inside another once links are followed: a command that writes to a path the user gave
// must not land inside a store it reads (a chunk being dumped, the source home of a replay), and a link or a
// not-yet-created path must not hide that.
import { realpath } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";

/** `path` with every link resolved; the part that does not exist yet is appended to its nearest existing folder. */
async function realPathOf(path: string): Promise<string> {
  for (let at = resolve(path), rest = ""; ; rest = join(basename(at), rest), at = dirname(at)) {
    try {
      return join(await realpath(at), rest);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT" || dirname(at) === at) throw err;
    }
  }
}

/**
 * True when `path` is `dir` or lies inside it, through any links (of `path` itself or of its folders).
 * @example await liesWithin("/h/data/snapshots/14/1/0", "/h/data/snapshots") // true
 */
export async function liesWithin(path: string, dir: string): Promise<boolean> {
  const inside = relative(await realPathOf(dir), await realPathOf(path));
  // `..` or `../…` leaves the folder; a name that merely starts with two dots (`..x`) is inside it.
  return inside !== ".." && !inside.startsWith(`..${sep}`) && !isAbsolute(inside);
}
