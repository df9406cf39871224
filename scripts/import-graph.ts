// The import graph of src/: every `import … from`, `export … from` and `import("…")` with a relative
// specifier, type-only imports included (a type cycle still ties two files together for a reader).
// `node scripts/import-graph.ts` prints the cycles and the upward imports; test/architecture/
// imports.test.ts fails on any. Layers are listed bottom-up in LAYERS below and in docs/ARCHITECTURE.md.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root. */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/**
 * The layers of src/, bottom first: a file may import its own layer and the ones below, never above. Each
 * layer is a list of folder patterns over repo-relative paths; every folder under src/ is in exactly one
 * (`filesWithoutLayer` finds any that is not). The client (`src/client/`: RPC, keyring, tx building and the
 * CLI plumbing in `src/client/cli/`) sits below the modules, so a module's own CLI (`src/x/<m>/client/`)
 * imports only downwards; the command tree that wires every module's CLI (`src/cli/`) sits above the node.
 * The testing kit is the top floor: it builds whole chains. src/visor stands apart: it may import only itself.
 */
export const LAYERS: readonly (readonly RegExp[])[] = [
  [/^src\/errors\//, /^src\/bytes\//, /^src\/gen\//, /^src\/crypto\//],
  [/^src\/store\//, /^src\/config\//],
  [/^src\/app\//],
  [/^src\/client\//],
  [/^src\/x\//],
  [/^src\/engine\//, /^src\/abci\//, /^src\/server\//],
  [/^src\/node\//, /^src\/runtime\//, /^src\/snapshots\//, /^src\/replay\//, /^src\/release\//],
  [/^src\/cli\//],
  [/^src\/testing\//],
];

/**
 * Upward imports known to be wrong and being moved by another branch of issue 35 (the test helpers going into
 * src/testing, the crypto going to the ground floor). Each is named so it can be deleted once moved; the layer
 * test fails on any upward import not listed here, and on an entry listed here that no longer exists.
 */
export const KNOWN_UPWARD: readonly string[] = [];

/** A source file and the files it imports. */
export type ImportGraph = Map<string, Set<string>>;

const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)["']([^"']+)["']/gm;

/** Reads every .ts file under `dirs` (test files and generated code excluded) into a graph keyed by repo-relative path. */
export function readImportGraph(dirs: readonly string[] = ["src"], root: string = ROOT): ImportGraph {
  const graph: ImportGraph = new Map();
  const files = dirs.flatMap((dir) => listSources(join(root, dir)));
  for (const file of files) {
    const from = relative(root, file);
    const targets = new Set<string>();
    for (const match of readFileSync(file, "utf8").matchAll(SPECIFIER)) {
      const specifier = match[1] as string;
      if (!specifier.startsWith(".")) continue;
      const target = relative(root, resolve(dirname(file), specifier));
      if (target.endsWith(".ts")) targets.add(target);
    }
    graph.set(from, targets);
  }
  return graph;
}

function listSources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      if (name !== "gen" && name !== "node_modules") out.push(...listSources(path));
    } else if (name.endsWith(".ts") && !name.endsWith(".test.ts") && !name.endsWith(".d.ts")) {
      out.push(path);
    }
  }
  return out;
}

/** The strongly connected components with more than one file (or a file importing itself): the import cycles. */
export function importCycles(graph: ImportGraph): string[][] {
  // Tarjan's algorithm, iterative so a deep graph cannot overflow the stack.
  let index = 0;
  const indices = new Map<string, number>();
  const lowlink = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  for (const start of graph.keys()) {
    if (indices.has(start)) continue;
    const work: { node: string; edges: string[]; next: number }[] = [];
    const visit = (node: string) => {
      indices.set(node, index);
      lowlink.set(node, index);
      index++;
      stack.push(node);
      onStack.add(node);
      work.push({ node, edges: [...(graph.get(node) ?? [])].filter((n) => graph.has(n)), next: 0 });
    };
    visit(start);
    while (work.length > 0) {
      const frame = work[work.length - 1] as (typeof work)[number];
      if (frame.next < frame.edges.length) {
        const to = frame.edges[frame.next++] as string;
        if (!indices.has(to)) visit(to);
        else if (onStack.has(to)) lowlink.set(frame.node, Math.min(lowlink.get(frame.node)!, indices.get(to)!));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent !== undefined) lowlink.set(parent.node, Math.min(lowlink.get(parent.node)!, lowlink.get(frame.node)!));
      if (lowlink.get(frame.node) === indices.get(frame.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop() as string;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        if (component.length > 1 || graph.get(frame.node)?.has(frame.node)) cycles.push(component.sort());
      }
    }
  }
  return cycles;
}

/** The layer of `file` (an index into {@link LAYERS}), "visor", or undefined when no layer claims it. */
export function layerOf(file: string): number | "visor" | undefined {
  if (file.startsWith("src/visor/")) return "visor";
  for (let at = LAYERS.length - 1; at >= 0; at--) {
    if ((LAYERS[at] as readonly RegExp[]).some((pattern) => pattern.test(file))) return at;
  }
  return undefined;
}

/** Imports that point up the layers of {@link LAYERS} (or into or out of src/visor), as `from -> to`. */
export function upwardImports(graph: ImportGraph): string[] {
  const found: string[] = [];
  for (const [from, targets] of graph) {
    const fromLayer = layerOf(from);
    for (const to of targets) {
      const toLayer = layerOf(to);
      const crossesVisor = (fromLayer === "visor") !== (toLayer === "visor");
      const upward = typeof fromLayer === "number" && typeof toLayer === "number" && toLayer > fromLayer;
      if (crossesVisor || upward) found.push(`${from} -> ${to}`);
    }
  }
  return found.sort();
}

/** The files of `graph` that no layer claims (each must be placed in {@link LAYERS}). */
export function filesWithoutLayer(graph: ImportGraph): string[] {
  return [...graph.keys()].filter((file) => layerOf(file) === undefined).sort();
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const graph = readImportGraph();
  const cycles = importCycles(graph);
  const upward = upwardImports(graph);
  for (const cycle of cycles) console.log(`cycle: ${cycle.join(" <-> ")}`);
  const unlayered = filesWithoutLayer(graph);
  for (const edge of upward) console.log(`upward: ${edge}${KNOWN_UPWARD.includes(edge) ? " (known, issue 35)" : ""}`);
  for (const file of unlayered) console.log(`no layer: ${file}`);
  const unknown = upward.filter((edge) => !KNOWN_UPWARD.includes(edge));
  console.log(
    `${graph.size} files, ${cycles.length} cycles, ${upward.length} upward imports (${unknown.length} not known), ${unlayered.length} files without a layer`,
  );
  process.exitCode = cycles.length + unknown.length + unlayered.length === 0 ? 0 : 1;
}
