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
 * The layers of src/, bottom first: a file may import its own layer and the ones below, never above.
 * Each layer is a list of patterns over repo-relative paths; the highest layer with a matching pattern
 * wins. The CLI's client plumbing (`src/cli/client/`: context, flags, session, output; `tx-sender.ts`,
 * `errors.ts`, `io.ts`) sits above the node and below the modules' CLIs (`src/x/<m>/cli.ts`, `src/x/<m>/client/`), which sit
 * below the command tree that wires them (`src/cli/commands/`, the root). src/visor stands apart: it may
 * import only itself.
 */
export const LAYERS: readonly (readonly RegExp[])[] = [
  [/^src\/errors\//, /^src\/bytes\//, /^src\/gen\//, /^src\/crypto\//],
  [/^src\/store\//, /^src\/config\//],
  [/^src\/app\//],
  [/^src\/x\//],
  [/^src\/engine\//, /^src\/abci\//, /^src\/server\//, /^src\/client\//],
  [/^src\/node\//, /^src\/runtime\//],
  [/^src\/cli\/client\//, /^src\/cli\/(tx-sender|errors|io)\.ts$/],
  [/^src\/x\/[^/]+\/(cli\.ts|client\/)/],
  [/^src\/cli\/(?!client\/|(tx-sender|errors|io)\.ts$)/],
];

/**
 * Test harnesses (`testing.ts`, `testing/`, `test-support`) build whole chains for tests, so they may
 * reach up the layers; they are test code, not part of the product's graph. Cycles are still checked.
 */
export const HARNESS = /(^|\/)(testing\.ts|testing\/|test-support)/;

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

function layerOf(file: string): number | "visor" | undefined {
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
    if (HARNESS.test(from)) continue;
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

if (import.meta.url === `file://${process.argv[1]}`) {
  const graph = readImportGraph();
  const cycles = importCycles(graph);
  const upward = upwardImports(graph);
  for (const cycle of cycles) console.log(`cycle: ${cycle.join(" <-> ")}`);
  for (const edge of upward) console.log(`upward: ${edge}`);
  console.log(`${graph.size} files, ${cycles.length} cycles, ${upward.length} upward imports`);
  process.exitCode = cycles.length + upward.length === 0 ? 0 : 1;
}
