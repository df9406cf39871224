// Compiles the TypeScript sources to dist/ with tsc, copies the generated protobuf-es JavaScript (src/gen holds
// .js + .d.ts pairs, which tsc does not emit) beside it, and writes dist/package.json: the package's `exports`
// pointed at the compiled .js, so `chaind/...` imports inside dist/ (chain/cmd/chaind.js → chaind/cli) resolve to
// dist/ and not to the .ts sources the checkout's package.json names (scripts/dist-manifest.ts). dist/ is the package
// a chain developer installs (`npm pack ./dist`), with the .d.ts of every file, the testing kit and proto/.
// Last, the malloc-trim addon (scripts/malloc-trim-addon.ts) into dist/native/, where the node finds it from dist/
// and from the source tree; where it cannot be compiled the build says why in one line and does not fail: the node
// runs as before without it.
import { execFileSync } from "node:child_process";
import { rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { MALLOC_TRIM_ADDON } from "../src/node/malloc-trim.ts";
import { completeDist } from "./dist-manifest.ts";
import { buildMallocTrimAddon } from "./malloc-trim-addon.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
rmSync(join(root, "dist"), { recursive: true, force: true });
execFileSync(join(root, "node_modules", ".bin", "tsc"), ["-p", "tsconfig.build.json"], { cwd: root, stdio: "inherit" });

completeDist(root, join(root, "dist"));

const addon = buildMallocTrimAddon(root, join(root, "dist", MALLOC_TRIM_ADDON));
if (!addon.built) console.warn(`malloc-trim addon not built (the node runs without it): ${addon.reason}`);
