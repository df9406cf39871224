// dist/package.json: the package's `exports` pointed at the compiled .js, so `chaind/...` imports inside dist/
// (chain/cmd/chaind.js → chaind/cli) resolve to dist/ and not to the .ts sources the checkout's package.json names.
// The testing kit is left out (it is not built). Used by scripts/build.ts and by the e2e tests' private builds.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** The root manifest's name, version and exports, each export moved to its compiled .js; the testing kit left out. */
export function distManifest(projectRoot: string): Record<string, unknown> {
  const manifest = JSON.parse(readFileSync(join(projectRoot, "package.json"), "utf8")) as {
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

/**
 * Writes `<distDir>/package.json` from `projectRoot`'s manifest.
 *
 * @example writeDistManifest(root, join(root, "dist"));
 */
export function writeDistManifest(projectRoot: string, distDir: string): void {
  writeFileSync(join(distDir, "package.json"), `${JSON.stringify(distManifest(projectRoot), null, 2)}\n`);
}
