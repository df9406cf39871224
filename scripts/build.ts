// Compiles the TypeScript sources to dist/ with tsc, copies the generated protobuf-es JavaScript (src/gen holds
// .js + .d.ts pairs, which tsc does not emit) beside it, and writes dist/package.json: the package's `exports`
// pointed at the compiled .js, so `chaind/...` imports inside dist/ (chain/cmd/chaind.js → chaind/cli) resolve to
// dist/ and not to the .ts sources the checkout's package.json names. The testing kit is not built.
import { execFileSync } from "node:child_process";
import { cpSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
rmSync(join(root, "dist"), { recursive: true, force: true });
execFileSync(join(root, "node_modules", ".bin", "tsc"), ["-p", "tsconfig.build.json"], { cwd: root, stdio: "inherit" });
cpSync(join(root, "src", "gen"), join(root, "dist", "src", "gen"), { recursive: true });

writeFileSync(join(root, "dist", "package.json"), `${JSON.stringify(distManifest(), null, 2)}\n`);

/** The root manifest's name, type and exports, each export moved to its compiled .js; the testing kit left out. */
function distManifest(): Record<string, unknown> {
  const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
    name: string;
    version: string;
    exports: Record<string, string>;
  };
  const exports: Record<string, string> = {};
  for (const [subpath, target] of Object.entries(manifest.exports)) {
    if (subpath === "./testing" || subpath === "./package.json") continue;
    exports[subpath] = target.replace(/\.ts$/, ".js");
  }
  return { name: manifest.name, version: manifest.version, private: true, type: "module", exports };
}
