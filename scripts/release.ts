// `npm run release`: the reference chain's release files for linux/amd64, built by the package's release builder
// (src/release/build-release.ts, also `<binary> release` of any chain): `chaind-<release>-linux-amd64`, its archive
// with bin/chaind, bin/chainvisor and RELEASE, and their .sha256 (docs/RELEASES.md).
//
//   node scripts/release.ts [--release <v1|v2|...>] [--out <dir>] [--skip-build]
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { referenceManifest } from "../chain/manifest.ts";
import { buildRelease } from "../src/release/build-release.ts";

// The builder's API, where the release tests and the bench have always found it.
export * from "../src/release/build-release.ts";

/** The release built when `--release` is not given: the reference chain's default release (chain/manifest.ts). */
const DEFAULT_RELEASE: string = referenceManifest.defaultRelease;

const USAGE = `usage: node scripts/release.ts [--release <name>] [--out <dir>] [--skip-build]  (default release: ${DEFAULT_RELEASE})`;

/** Runs the command line: parses argv, builds the release, prints where it is. Returns the exit status. */
export async function main(argv: string[]): Promise<number> {
  let values: { release?: string; out?: string; "skip-build"?: boolean; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        release: { type: "string" },
        out: { type: "string" },
        "skip-build": { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    console.error(`release: ${usageProblem(error as Error)}\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  if (values.release === "") {
    console.error(`release: --release needs a name (e.g. v2)\n${USAGE}`);
    return 2;
  }
  try {
    const built = await buildRelease({
      release: values.release ?? DEFAULT_RELEASE,
      outDir: values.out === undefined ? undefined : resolve(values.out),
      skipBuild: values["skip-build"] === true,
    });
    console.log(`${built.archive}\nsha256 ${built.sha256}\n${built.executable}\nsha256 ${built.executableSha256}`);
    return 0;
  } catch (error) {
    const cause = (error as Error).cause;
    console.error(`release: ${(error as Error).message}${cause instanceof Error ? `\n  cause: ${cause.message}` : ""}`);
    return 1;
  }
}

/**
 * node:util's parse error in one line. Its message for an option followed by another option (`--out --skip-build`)
 * takes three lines and never says that the value is missing.
 */
function usageProblem(error: Error): string {
  const first = error.message.split("\n")[0];
  const ambiguous = /^Option '(--[\w-]+)' argument is ambiguous/.exec(first);
  return ambiguous === null
    ? first
    : `${ambiguous[1]} needs a value, but another option follows it (write ${ambiguous[1]}=<value> for a value starting with -)`;
}

if (import.meta.main) process.exitCode = await main(process.argv.slice(2));
