// Error messages from the store, the block store and Node's fs calls carry absolute paths
// (`IO error: /home/op/.chaind/data/blocks.db/000005.ldb: Invalid argument`). A client must not
// learn where the node's files live; operators still see the full message in the node's log.

// An absolute path of two segments or more, not part of a URL or a relative path.
const ABSOLUTE_PATH = /(?<![\w.:/-])\/(?:[^\s'"`:;,()[\]{}<>/]+\/)+[^\s'"`:;,()[\]{}<>/]*/g;
// Folders of a home whose names say enough without the home's own location.
const HOME_FOLDERS = ["data", "config", "node_modules"];

/**
 * `message` with each absolute file-system path cut to what names the file without locating it:
 * from the home folder down (`data/blocks.db/000005.ldb`), otherwise the last component.
 *
 * @example redactPaths("open '/h/.chaind/data/blocks.db/1.ldb'") // "open 'data/blocks.db/1.ldb'"
 */
export function redactPaths(message: string): string {
  return message.replace(ABSOLUTE_PATH, (path) => {
    const parts = path.split("/").filter((p) => p !== "");
    for (let i = parts.length - 2; i >= 0; i--) {
      if (HOME_FOLDERS.includes(parts[i])) return parts.slice(i).join("/");
    }
    return parts.at(-1) ?? "";
  });
}
