#!/usr/bin/env node
// `chaind` from the source tree, fast: a plain JavaScript launcher, so Node's on-disk compile cache is on
// before any TypeScript loads. With it on, every .ts module — the entry `chaind.ts` included — comes from the
// cache after the first run and Node never starts its type stripper (~40% of a short command's start-up when
// the entry itself is .ts). Then the relative imports of the ~160 modules a command loads skip most of Node's
// resolver (resolve-shortcut.ts: ~20% of a query's CPU). `node chain/cmd/chaind.ts ...` runs the same CLI,
// only slower to start.
import { enableCompileCache } from "node:module";

enableCompileCache?.();
(await import("./resolve-shortcut.ts")).shortcutRelativeResolution();
await import("./chaind.ts");
