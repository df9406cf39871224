// The CLI's heaviest dependencies as one bundled script, for `chaind` run from the source tree (chain/cmd/chaind.mjs).
// Node loads @bufbuild/protobuf as ~60 small ES modules and commander as CommonJS behind an ES wrapper; each module
// costs Node's loader more than the code it holds. Bundled once per installed version (esbuild, the project's own
// build tool, the way the single-file release bundles the whole application) into a per-user cache directory, they
// load as one CommonJS script (each package behind a getter, so a command evaluates only the packages it imports)
// and one small ES module per import name: a query's CPU 164 -> 149 ms as ES chunks, medians of one interleaved run
// (docs/PERFORMANCE.md, "Start-up at the CLI and at the upgrade"). chain/cmd/resolve-shortcut.ts points every ES
// import of these names at the bundle, so the process still holds one copy of each package; require() still gets
// the package itself, as before.
//
// Why a script and not ES chunks (session 10): Node's compile cache is made right after a module is compiled, so it
// holds the top level only, and every start compiled again each function it called — the protobuf runtime's
// descriptor building, commander's parser. The bundle's loader runs the script through a vm.Script whose V8 code
// cache is written as the first process to load it exits, holding every function that process compiled: a query's
// CPU 120 -> 109 ms (medians of 21 interleaved rounds at load 12).
//
// Anything unusual — esbuild or a package not installed, a cache directory that is not this user's alone, a failed
// build — means no bundle: the CLI then loads the packages from node_modules, as it always did.
import type * as ChildProcess from "node:child_process";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import {
  isWktFileDescriptorName,
  narrowedWktImport,
  WKT,
  withLazyWktIndex,
  wktFaceKey,
  wktIndexModules,
} from "./lazy-wkt.ts";

// node:fs is taken with process.getBuiltinModule, here and in the loader, not a value import: an ESM import of it
// reads every export, and its lazy ones (the streams, `promises`, `Dir`) load a dozen more built-in modules, a few ms
// of every start.
const { lstatSync, mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } =
  process.getBuiltinModule("node:fs");

/** Bumped when what is bundled, or how, changes: a new key, so old bundles are never used. */
const LAYOUT = 5;

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

/** The packages as one CommonJS script, its loader, and the loader's text (an ES module of the bundle). */
const SCRIPT = "dependencies.cjs";
const LOADER = "dependencies-loader.js";
const LOADER_SOURCE = `// Written by chaind's chain/cmd/dependency-bundle.ts: runs ${SCRIPT} once per process through a vm.Script and,
// when it has no V8 code cache for it yet (or V8 refuses the one it has), writes one as the process exits. Made
// after a run, the cache holds every function the run compiled; Node's compile cache, made right after compiling,
// holds only the top level, so every start compiled the packages' functions again as they were first called.
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const { readFileSync, renameSync, writeFileSync } = process.getBuiltinModule("node:fs");
const { constants, Script } = process.getBuiltinModule("node:vm");

const file = fileURLToPath(new URL("./${SCRIPT}", import.meta.url));
const cacheFile = \`\${file}.v8cache\`;
let cachedData;
try {
  cachedData = readFileSync(cacheFile);
} catch {}
const script = new Script(
  \`(function (exports, require, module, __filename, __dirname) {\${readFileSync(file, "utf8")}\\n})\`,
  { filename: file, cachedData, importModuleDynamically: constants.USE_MAIN_CONTEXT_DEFAULT_LOADER },
);
const module = { exports: {} };
script.runInThisContext()(module.exports, createRequire(file), module, file, file.slice(0, file.lastIndexOf("/")));
if (cachedData === undefined || script.cachedDataRejected) {
  process.once("exit", () => {
    try {
      const partial = \`\${cacheFile}.\${process.pid}\`;
      writeFileSync(partial, script.createCachedData());
      renameSync(partial, cacheFile);
    } catch {}
  });
}
export default module.exports;
`;

/** The bundle's import names, known without touching the disk, and its files, looked for only when first asked. */
export interface LazyBundle {
  names: ReadonlySet<string>;
  /**
   * The bundled file standing for `specifier` imported by `parentUrl` ({@link bundledDependencies} of the project,
   * computed once): a generated file's one WKT file descriptor gets that name's own face (lazy-wkt.ts).
   */
  urlFor(specifier: string, parentUrl: string): string | undefined;
}

/**
 * The bundle of `root`'s dependencies, looked up (and built) at the first import of one of its names: a command that
 * imports none of them (a plain `version`) pays nothing for it.
 */
export function lazyDependencyBundle(root: string): LazyBundle {
  let urls: ReadonlyMap<string, string> | undefined | null = null;
  return {
    names: new Set(Object.keys(ENTRIES)),
    urlFor: (specifier, parentUrl) => {
      if (urls === null) urls = bundledDependencies(root);
      if (urls === undefined) return undefined;
      if (specifier === WKT && parentUrl.endsWith("_pb.js") && parentUrl.startsWith("file:")) {
        const name = narrowedWktImport(readSourceOf(parentUrl));
        const face = name === undefined ? undefined : urls.get(wktFaceKey(name));
        if (face !== undefined) return face;
      }
      return urls.get(specifier);
    },
  };
}

/** The text of the module at file URL `url`; "" when it cannot be read (the whole WKT face is then used). */
function readSourceOf(url: string): string {
  try {
    return readFileSync(fileURLToPath(url), "utf8");
  } catch {
    return "";
  }
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
    const urls = new Map(
      Object.entries(ENTRIES).map(([name, file]) => [name, pathToFileURL(join(dir, `${file}.js`)).href]),
    );
    // The one-name WKT faces, where the bundle has them (lazy-wkt.ts), under wktFaceKey(name).
    for (const file of bundleFiles(dir)) {
      const name = /^protobuf-wkt--(\w+)\.js$/.exec(file)?.[1];
      if (name !== undefined) urls.set(wktFaceKey(name), pathToFileURL(join(dir, file)).href);
    }
    return urls;
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
    // One CommonJS script holding every package, each behind a getter: a command evaluates only what it imports.
    const getters = Object.keys(ENTRIES).map(
      (name) => `get ${JSON.stringify(name)}() { return require(${JSON.stringify(name)}); }`,
    );
    esbuild.buildSync({
      stdin: {
        contents: `module.exports = { ${getters.join(", ")} };`,
        resolveDir: root,
        sourcefile: "dependencies.cjs",
      },
      outfile: join(partial, SCRIPT),
      bundle: true,
      format: "cjs",
      platform: "node",
      target: "node24",
      legalComments: "none",
      logLevel: "silent",
      absWorkingDir: root,
    });
    const lazyWkt = makeWktIndexLazy(root, join(partial, SCRIPT));
    writeFileSync(join(partial, LOADER), LOADER_SOURCE);
    // The ES face of each name: its exported names, read from the script in a process of their own (this one must
    // not load a copy of the packages that the rest of the run would not share).
    // node:child_process only here: loading it costs every start ~6 ms of CPU (it loads node:net).
    const { execFileSync } = process.getBuiltinModule("node:child_process") as typeof ChildProcess;
    const exported = JSON.parse(
      execFileSync(process.execPath, [
        "-e",
        `const d = require(${JSON.stringify(join(partial, SCRIPT))});` +
          `process.stdout.write(JSON.stringify(Object.fromEntries(Object.keys(d).map((n) => [n, Object.keys(d[n])]))));`,
      ]).toString(),
    ) as Record<string, string[]>;
    for (const [name, file] of Object.entries(ENTRIES)) {
      writeFileSync(join(partial, `${file}.js`), shimSource(name, exported[name] ?? []));
    }
    // With the WKT index lazy, a face of one file descriptor each, for the generated files (lazy-wkt.ts).
    if (lazyWkt) {
      for (const name of (exported[WKT] ?? []).filter(isWktFileDescriptorName)) {
        writeFileSync(join(partial, wktFaceFile(name)), oneNameFaceSource(WKT, name));
      }
    }
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

/** The ES module standing for import name `name`: the script's exports of that name, as named (and default) exports. */
function shimSource(name: string, names: readonly string[]): string {
  const named = names.filter((n) => n !== "default" && /^[A-Za-z_$][\w$]*$/.test(n));
  const lines = [
    `import dependencies from "./${LOADER}";`,
    `const m = dependencies[${JSON.stringify(name)}];`,
    `export const { ${named.join(", ")} } = m;`,
  ];
  if (names.includes("default")) lines.push("export default m.default;");
  return `${lines.join("\n")}\n`;
}

/** Every file the bundle was built with is still there (one readdir). */
function isWhole(dir: string): boolean {
  const files = bundleFiles(dir);
  const present = new Set(readdirSync(dir));
  return files.length > 0 && files.every((file) => present.has(file));
}

/** The files the bundle was built with, as its package.json lists them (read once per process). */
const filesByDir = new Map<string, string[]>();
function bundleFiles(dir: string): string[] {
  let files = filesByDir.get(dir);
  if (files === undefined) {
    const listed = (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { files?: unknown }).files;
    files = Array.isArray(listed) ? listed.filter((file): file is string => typeof file === "string") : [];
    filesByDir.set(dir, files);
  }
  return files;
}

/** The face file of WKT file descriptor `name`. */
function wktFaceFile(name: string): string {
  return `protobuf-wkt--${name}.js`;
}

/** An ES module exporting the one name `name` of import name `entry` (read from the script at its evaluation). */
function oneNameFaceSource(entry: string, name: string): string {
  return `import dependencies from "./${LOADER}";\nexport const ${name} = dependencies[${JSON.stringify(entry)}].${name};\n`;
}

/**
 * Makes the bundled WKT index lazy (lazy-wkt.ts), in place; false (the script left as it is) when the installed index
 * or the script has another shape. The names each WKT module exports are read in a process of their own, as the
 * faces' names are.
 */
function makeWktIndexLazy(root: string, script: string): boolean {
  const index = createRequire(join(root, "package.json")).resolve(WKT);
  const modules = wktIndexModules(readFileSync(index, "utf8"));
  if (modules === undefined) return false;
  const { execFileSync } = process.getBuiltinModule("node:child_process") as typeof ChildProcess;
  const paths = modules.map((path) => join(index, "..", path));
  const names = JSON.parse(
    execFileSync(process.execPath, [
      "-e",
      `process.stdout.write(JSON.stringify(${JSON.stringify(paths)}.map((p) => Object.keys(require(p)))));`,
    ]).toString(),
  ) as string[][];
  const lazy = withLazyWktIndex(readFileSync(script, "utf8"), names);
  if (lazy === undefined) return false;
  writeFileSync(script, lazy);
  return true;
}
/** Code is loaded from here: a directory anyone else could write to (a planted /tmp path) is not used. */
function ownedByUserAlone(path: string, uid: number): boolean {
  const stats = lstatSync(path);
  return stats.isDirectory() && stats.uid === uid && (stats.mode & 0o022) === 0;
}
