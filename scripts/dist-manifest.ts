// dist/package.json: the package as a chain developer installs it (`npm run build && npm pack ./dist`). Its `exports`
// point at the compiled .js (with the .d.ts tsc writes beside each), so `chaind/...` imports inside dist/
// (chain/cmd/chaind.js → chaind/cli) resolve to dist/ and not to the .ts sources the checkout's package.json names —
// Node refuses to strip types under node_modules, so a package of the sources could not run once installed. It
// carries the root manifest's runtime dependencies and bins, so `npm install <tarball>` brings what dist/ imports.
// The testing kit is in it (for the chain's own tests) but never in a release: the single-file bundle holds only what
// its entry points import. Used by scripts/build.ts and by the e2e tests' private builds.
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** The fields of the root manifest that dist/package.json reads. */
interface RootManifest {
  name: string;
  version: string;
  description?: string;
  license?: string;
  engines?: Record<string, string>;
  exports: Record<string, string>;
  bin?: Record<string, string>;
  dependencies?: Record<string, string>;
}

/**
 * The root manifest as the compiled package: name, version, engines, runtime dependencies; each export moved to its
 * compiled .js and each bin made relative to dist/.
 */
export function distManifest(projectRoot: string): Record<string, unknown> {
  const manifest = JSON.parse(readFileSync(join(projectRoot, "package.json"), "utf8")) as RootManifest;
  const exports: Record<string, string> = {};
  for (const [subpath, target] of Object.entries(manifest.exports)) exports[subpath] = target.replace(/\.ts$/, ".js");
  const bin: Record<string, string> = {};
  for (const [name, target] of Object.entries(manifest.bin ?? {})) bin[name] = target.replace(/^dist\//, "");
  return {
    name: manifest.name,
    version: manifest.version,
    description: manifest.description,
    license: manifest.license,
    private: true,
    type: "module",
    engines: manifest.engines,
    exports,
    bin,
    dependencies: manifest.dependencies,
  };
}

/**
 * Writes `<distDir>/package.json` from `projectRoot`'s manifest.
 *
 * @example writeDistManifest(root, join(root, "dist"));
 */
export function writeDistManifest(projectRoot: string, distDir: string): void {
  writeFileSync(join(distDir, "package.json"), `${JSON.stringify(distManifest(projectRoot), null, 2)}\n`);
}

/**
 * Completes a tsc output `distDir` into the package: the generated protobuf-es JavaScript (src/gen holds .js + .d.ts
 * pairs, which tsc does not emit), the `.proto` files (a chain's own schemas import them from
 * node_modules/chaind/proto, named in its buf.yaml) and package.json.
 *
 * @example completeDist(root, join(root, "dist"));
 */
export function completeDist(projectRoot: string, distDir: string): void {
  cpSync(join(projectRoot, "src", "gen"), join(distDir, "src", "gen"), { recursive: true });
  cpSync(join(projectRoot, "proto"), join(distDir, "proto"), { recursive: true });
  writeDistManifest(projectRoot, distDir);
}
