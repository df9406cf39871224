// A light release archive for the multi-validator upgrade test: `bin/chaind`, a POSIX sh launcher that runs this
// source tree as one release (CHAIND_RELEASE fixed, as scripts/release.ts's launcher fixes it), packed as tar.gz
// the way chainvisor installs releases. The full archive (compiled app, runtime, node_modules) is what
// `npm run release` builds and the release tests check; packing it four times over here would cost minutes and
// test nothing more about consensus.
import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { create as createTar } from "tar";

const CHAIND_ENTRY = join(import.meta.dirname, "..", "..", "..", "chain", "cmd", "chaind.mjs");

/** A single-quoted sh word. */
function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'"'"'`)}'`;
}

/** Writes `<outDir>/chaind-<release>-source.tar.gz` (bin/chaind runs this tree as `release`) and returns its path. */
export async function sourceReleaseArchive(outDir: string, release: string): Promise<string> {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(release)) throw new RangeError(`bad release name ${release}`);
  const stage = await mkdtemp(join(tmpdir(), `chaind-${release}-stage-`));
  try {
    await mkdir(join(stage, "bin"));
    const launcher = join(stage, "bin", "chaind");
    await writeFile(
      launcher,
      [
        "#!/bin/sh",
        `# chaind ${release}, run from the source tree (test launcher)`,
        `CHAIND_RELEASE=${release}`,
        "export CHAIND_RELEASE",
        `exec ${shellQuote(process.execPath)} ${shellQuote(CHAIND_ENTRY)} "$@"`,
        "",
      ].join("\n"),
    );
    await chmod(launcher, 0o755);
    await mkdir(outDir, { recursive: true });
    const archive = join(outDir, `chaind-${release}-source.tar.gz`);
    await createTar({ gzip: true, cwd: stage, file: archive, portable: true }, ["bin"]);
    return archive;
  } finally {
    await rm(stage, { recursive: true, force: true });
  }
}
