// The protobuf runtime's well-known types (WKT), evaluated one file at a time in the dependency bundle
// (chain/cmd/dependency-bundle.ts), for `chaind` run from the source tree.
//
// Each WKT file hydrates its descriptor when it is evaluated (`fileDesc`), and the runtime's CommonJS index of them
// (`wkt/index.js`) requires all 15 at once; the runtime's own `equals.js`, `to-json.js` and `from-json.js` require
// that index at their top, so every command that imported `@bufbuild/protobuf` hydrated every WKT file, though a
// query needs descriptor.proto alone (its answer's generated files extend it). Two pieces take that off:
//
// - in the bundle, the index becomes one getter per exported name, requiring its file at the first read
//   (withLazyWktIndex, applied to esbuild's output). A file is still evaluated once per process, so every name
//   keeps its identity;
// - a generated file (`*_pb.js`) whose only import from `@bufbuild/protobuf/wkt` is one file descriptor
//   (`import { file_google_protobuf_descriptor } from "@bufbuild/protobuf/wkt";`, protoc-gen-es's own form) is
//   given a face module of the bundle that exports that one name (narrowedWktImport reads it; dependency-bundle.ts
//   writes the faces and picks one in LazyBundle.urlFor), not the face of the whole
//   index, whose ES exports read every name when it is evaluated. Any other form of import gets the whole face.
//
// docs/PERFORMANCE.md ("Start-up at the CLI and at the upgrade", round 3 session 22) has what it saves.

/** The import name the runtime's well-known types go by. */
export const WKT = "@bufbuild/protobuf/wkt";

/** The bundle's key (and face file suffix) of the one-name face of `name`, a WKT file descriptor's export. */
export function wktFaceKey(name: string): string {
  return `${WKT}#${name}`;
}

/** A WKT file descriptor's export name, e.g. "file_google_protobuf_descriptor": the names a one-name face is made for. */
export function isWktFileDescriptorName(name: string): boolean {
  return /^file_google_protobuf_\w+$/.test(name);
}

/**
 * The one WKT file descriptor a generated module imports, read from its source; undefined (the whole face then)
 * unless the module names `@bufbuild/protobuf/wkt` exactly once, in one import of exactly one such name.
 */
export function narrowedWktImport(source: string): string | undefined {
  const quoted = `"${WKT}"`;
  const first = source.indexOf(quoted);
  if (first === -1 || source.indexOf(quoted, first + 1) !== -1) return undefined;
  const match = /^import \{ (file_google_protobuf_\w+) \} from "@bufbuild\/protobuf\/wkt";$/m.exec(source);
  return match?.[1];
}

/**
 * The relative paths the runtime's CommonJS WKT index re-exports, in order; undefined when the file holds anything
 * else than tsc's header, its `__esModule` mark and `__exportStar(require("./x.js"), exports);` lines (the bundle
 * then keeps the index as it is).
 */
export function wktIndexModules(source: string): string[] | undefined {
  const modules: string[] = [];
  let inHelpers = false;
  for (const raw of source.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("//") || line === '"use strict";') continue;
    // tsc's two helpers, from their `var` to the line closing each.
    if (/^var __(createBinding|exportStar) = /.test(line)) inHelpers = true;
    if (inHelpers) {
      if (line === "}));" || line === "};") inHelpers = false;
      continue;
    }
    if (line === 'Object.defineProperty(exports, "__esModule", { value: true });') continue;
    const star = /^__exportStar\(require\("(\.\/[\w./-]+\.js)"\), exports\);$/.exec(line);
    if (star === null) return undefined;
    modules.push(star[1] as string);
  }
  return modules.length > 0 ? modules : undefined;
}

/**
 * Rewrites the WKT index's module in `bundle` (esbuild's CommonJS output, where each module is a `__commonJS` entry
 * named by its path and the index's lines are `__exportStar(require_x(), exports);`) as lazy getters: the same names
 * in the same order as `__exportStar` gives them (the first module exporting a name keeps it; "default" is never
 * re-exported), each an enumerable getter reading its module, required at the first read of any of its names.
 * `names` holds each re-exported module's export names, in the index's order. Undefined when the entry is not found
 * as expected (the bundle is then used as it is).
 */
export function withLazyWktIndex(bundle: string, names: readonly (readonly string[])[]): string | undefined {
  const head = /"[^"\n]*node_modules\/@bufbuild\/protobuf\/dist\/cjs\/wkt\/index\.js"\((\w+)\) \{\n/.exec(bundle);
  if (head === null) return undefined;
  const exportsName = head[1] as string;
  const bodyStart = head.index + head[0].length;
  const bodyEnd = bundle.indexOf("\n  }\n});", bodyStart);
  if (bodyEnd === -1) return undefined;
  const body = bundle.slice(bodyStart, bodyEnd);
  const requires = [
    ...body.matchAll(new RegExp(`^ *__exportStar\\((require_\\w+)\\(\\), ${exportsName}\\);$`, "gm")),
  ].map((match) => match[1] as string);
  if (
    requires.length === 0 ||
    requires.length !== names.length ||
    body.split("__exportStar(").length - 1 !== requires.length
  ) {
    return undefined;
  }
  const lines = ['    "use strict";', `    Object.defineProperty(${exportsName}, "__esModule", { value: true });`];
  const taken = new Set<string>();
  requires.forEach((load, i) => {
    for (const name of names[i] ?? []) {
      if (name === "default" || taken.has(name)) continue;
      taken.add(name);
      const key = JSON.stringify(name);
      lines.push(
        `    Object.defineProperty(${exportsName}, ${key}, { enumerable: true, get: function () { return ${load}()[${key}]; } });`,
      );
    }
  });
  return bundle.slice(0, bodyStart) + lines.join("\n") + bundle.slice(bodyEnd);
}
