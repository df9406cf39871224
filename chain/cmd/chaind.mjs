#!/usr/bin/env node
// `chaind` from the source tree, fast: a plain JavaScript launcher, so Node's on-disk compile cache is on
// before any TypeScript loads. With it on, every .ts module — the entry `chaind.ts` included — comes from the
// cache after the first run and Node never starts its type stripper (~40% of a short command's start-up when
// the entry itself is .ts). Then the CLI's heaviest dependencies load as a few bundled files (dependency-bundle.ts)
// and the relative imports of the modules a command loads skip most of Node's resolver (resolve-shortcut.ts):
// together ~30% of a query's CPU. `node chain/cmd/chaind.ts ...` runs the same CLI, only slower to start.
import { enableCompileCache } from "node:module";
import { fileURLToPath } from "node:url";

enableCompileCache?.();
const { lazyDependencyBundle } = await import("./dependency-bundle.ts");
const { shortcutRelativeResolution } = await import("./resolve-shortcut.ts");
const project = new URL("../..", import.meta.url);
shortcutRelativeResolution(project.href, lazyDependencyBundle(fileURLToPath(project)));
await import("./chaind.ts");
