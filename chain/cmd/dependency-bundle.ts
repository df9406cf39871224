// The CLI's heaviest dependencies as a few bundled files, for `chaind` run from the source tree
// (chain/cmd/chaind.mjs). Node loads @bufbuild/protobuf as ~60 small ES modules and commander as CommonJS behind an
// ES wrapper; each module costs Node's loader more than the code it holds. Bundled once per installed version
// (esbuild, the project's own build tool, the way the single-file release bundles the whole application) into a
// per-user cache directory, they load as ~15 files: a query's CPU 164 -> 149 ms, medians of one interleaved run
// (docs/PERFORMANCE.md, "Start-up at the CLI and at the upgrade"). chain/cmd/resolve-shortcut.ts points every ES import of these names at the bundle, so
// the process still holds one copy of each package; require() still gets the package itself, as before.
//
// Anything unusual — esbuild or a package not installed, a cache directory that is not this user's alone, a failed
// build — means no bundle: the CLI then loads the packages from node_modules, as it always did.
import {
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

/** Bumped when what is bundled, or how, changes: a new key, so old bundles are never used. */
const LAYOUT = 2;

/**
 * Each bundled import name and the file it becomes. Every name of these packages that the sources import must be
 * here (dependency-bundle.test.ts checks): one left out would load a second copy of the package from node_modules.
 */
const ENTRIES: Readonly<Record<string, string>> = {
  "@bufbuild/protobuf": "protobuf",
  "@bufbuild/protobuf/codegenv2": "protobuf-codegenv2",
  "@bufbuild/protobuf/wkt": "protobuf-wkt",
  "@bufbuild/protobuf/wire": "protobuf-wire",
  "@bufbuild/protobuf/reflect": "protobuf-reflect",
  commander: "commander",
  "smol-toml": "smol-toml",
};
const PACKAGES = ["@bufbuild/protobuf", "commander", "smol-toml"];

// commander is CommonJS: inside an ES bundle its require() of Node's built-ins needs a require of its own.
const BANNER = 'import { createRequire as __chaindCreateRequire } from "node:module";\n'.concat(
  "const require = __chaindCreateRequire(import.meta.url);",
);

/** The bundle's import names, known without touching the disk, and its files, looked for only when first asked. */
export interface LazyBundle {
  names: ReadonlySet<string>;
  /** {@link bundledDependencies} of the project, computed once. */
  urls(): ReadonlyMap<string, string> | undefined;
}

/**
 * The bundle of `root`'s dependencies, looked up (and built) at the first import of one of its names: a command that
 * imports none of them (a plain `version`) pays nothing for it.
 */
export function lazyDependencyBundle(root: string): LazyBundle {
  let urls: ReadonlyMap<string, string> | undefined | null = null;
  return {
    names: new Set(Object.keys(ENTRIES)),
    urls: () => {
      if (urls === null) urls = bundledDependencies(root);
      return urls;
    },
  };
}

/**
 * The bundled files of the packages `root` (the project directory) has installed, by import name, building them on
 * first use; undefined when they cannot be had (the packages then load from node_modules).
 */
export function bundledDependencies(root: string): ReadonlyMap<string, string> | undefined {
  try {
    const uid = process.getuid?.();
    if (uid === undefined) return undefined;
    const cacheRoot = join(tmpdir(), `chaind-source-deps-${uid}`);
    mkdirSync(cacheRoot, { recursive: true, mode: 0o700 });
    if (!ownedByUserAlone(cacheRoot, uid)) return undefined;
    const dir = join(cacheRoot, installKey(root));
    if (statSync(join(dir, "package.json"), { throwIfNoEntry: false }) === undefined) build(root, cacheRoot, dir);
    if (!isWhole(dir)) {
      // Files gone from it (a temp cleaner ages files out of /tmp): not used, and removed so the next start rebuilds.
      rmSync(dir, { recursive: true, force: true });
      return undefined;
    }
    return new Map(Object.entries(ENTRIES).map(([name, file]) => [name, pathToFileURL(join(dir, `${file}.js`)).href]));
  } catch {
    return undefined;
  }
}

/**
 * Names the installed packages (where, which version, when written) and this Node: any change is a new bundle.
 * A plain FNV-1a hash of that text, not node:crypto, whose loading alone costs a start ~6 ms of CPU.
 */
function installKey(root: string): string {
  let text = `${LAYOUT}\0${process.version}`;
  for (const name of PACKAGES) {
    const manifest = join(realpathSync(join(root, "node_modules", name)), "package.json");
    const { version } = JSON.parse(readFileSync(manifest, "utf8")) as { version: string };
    text += `\0${name}\0${manifest}\0${version}\0${statSync(manifest).mtimeMs}`;
  }
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return `v${LAYOUT}-${hash.toString(16).padStart(8, "0")}`;
}

/** Builds into a fresh directory and renames it into place: a concurrent start sees a whole bundle or none. */
function build(root: string, cacheRoot: string, dir: string): void {
  const esbuild = createRequire(join(root, "package.json"))("esbuild") as typeof import("esbuild");
  const partial = join(cacheRoot, `.partial-${process.pid}-${Date.now()}`);
  try {
    esbuild.buildSync({
      entryPoints: Object.fromEntries(Object.entries(ENTRIES).map(([name, file]) => [file, name])),
      outdir: partial,
      bundle: true,
      splitting: true,
      format: "esm",
      platform: "node",
      target: "node24",
      banner: { js: BANNER },
      legalComments: "none",
      logLevel: "silent",
      absWorkingDir: root,
    });
    // Written last: its presence marks a complete bundle (the files' format is "module" through it), and it lists
    // the bundle's files, checked on every start.
    const files = readdirSync(partial).sort();
    writeFileSync(join(partial, "package.json"), `${JSON.stringify({ type: "module", files })}\n`);
    renameSync(partial, dir);
  } catch (error) {
    rmSync(partial, { recursive: true, force: true });
    // Another start renamed its bundle into place first: use that one.
    if (statSync(join(dir, "package.json"), { throwIfNoEntry: false }) === undefined) throw error;
  }
}

/** Every file the bundle was built with is still there (one readdir). */
function isWhole(dir: string): boolean {
  const { files } = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { files?: unknown };
  if (!Array.isArray(files)) return false;
  const present = new Set(readdirSync(dir));
  return files.every((file) => present.has(file));
}

/** Code is loaded from here: a directory anyone else could write to (a planted /tmp path) is not used. */
function ownedByUserAlone(path: string, uid: number): boolean {
  const stats = lstatSync(path);
  return stats.isDirectory() && stats.uid === uid && (stats.mode & 0o022) === 0;
}
