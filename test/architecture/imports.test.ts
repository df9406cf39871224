// Keeps src/'s import graph a layered tree (docs/ARCHITECTURE.md, "How the layering is checked"): no
// import cycle, no import up the layers of scripts/import-graph.ts. The checker is itself tested on
// small made-up graphs, so a checker that finds nothing cannot pass for a clean tree.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type ImportGraph, importCycles, readImportGraph, upwardImports } from "../../scripts/import-graph.ts";

const graphOf = (edges: Record<string, string[]>): ImportGraph =>
  new Map(Object.entries(edges).map(([from, to]) => [from, new Set(to)]));

describe("src/ import graph", () => {
  const graph = readImportGraph();

  it("reads the source tree", () => {
    assert.ok(graph.size > 200, `only ${graph.size} files read`);
    assert.ok(graph.get("src/cli/main.ts")?.has("src/cli/report-error.ts"), "main.ts imports report-error.ts");
  });

  it("has no import cycle", () => {
    assert.deepEqual(importCycles(graph), []);
  });

  it("has no import that points up the layers", () => {
    assert.deepEqual(upwardImports(graph), []);
  });
});

describe("the checker", () => {
  it("finds cycles, including long ones and a file importing itself", () => {
    const cycles = importCycles(
      graphOf({
        "src/a.ts": ["src/b.ts"],
        "src/b.ts": ["src/c.ts"],
        "src/c.ts": ["src/a.ts", "src/d.ts"],
        "src/d.ts": [],
        "src/e.ts": ["src/e.ts"],
      }),
    );
    assert.deepEqual(cycles.map((c) => c.join(",")).sort(), ["src/a.ts,src/b.ts,src/c.ts", "src/e.ts"]);
  });

  it("finds imports up the layers and across the sidecar's border, not down", () => {
    const upward = upwardImports(
      graphOf({
        "src/store/kv.ts": ["src/app/base-app.ts", "src/errors/user-error.ts"],
        "src/x/bank/keeper.ts": ["src/app/context.ts", "src/store/kv.ts"],
        "src/x/bank/cli.ts": ["src/client/tx/any.ts"],
        "src/visor/cli.ts": ["src/config/home.ts"],
        "src/app/testing.ts": ["src/x/bank/keeper.ts"],
      }),
    );
    assert.deepEqual(upward, ["src/store/kv.ts -> src/app/base-app.ts", "src/visor/cli.ts -> src/config/home.ts"]);
  });
});
