// Release archives for the end-to-end tests, built from this tree exactly as `npm run release` builds them.
import { join } from "node:path";
import { runCommand } from "./processes.ts";
import { PROJECT, projectToPackage } from "./project-build.ts";

/** One built archive. */
export interface TestRelease {
  /** Absolute path of `chaind-<release>-linux-amd64.tar.gz`. */
  archive: string;
  /** Lower-case hex sha256 of the archive. */
  sha256: string;
  /** Absolute path of the single executable `chaind-<release>-linux-amd64`. */
  executable: string;
  /** Lower-case hex sha256 of the single executable. */
  executableSha256: string;
}

/** The Node 24 runtime running the tests (the system `node` may be older). */
export const NODE = process.execPath;

/**
 * Builds the named releases into `outDir` and returns them by name: dist/ as it is when current (else a private
 * compiled copy, see project-build.ts), each archive packed in its own child process, all at once.
 * Takes a while (tens of seconds): start it early and await it where the archives are needed.
 */
export async function buildTestReleases(outDir: string, releases: string[]): Promise<Record<string, TestRelease>> {
  const projectRoot = await projectToPackage(outDir);
  const script = join(PROJECT, "test", "e2e", "support", "build-releases.ts");
  const built = await Promise.all(
    releases.map(async (release) => {
      const result = await runCommand(NODE, [script, projectRoot, outDir, release], {
        cwd: PROJECT,
        timeoutMs: 300_000,
      });
      const last = result.stdout.trim().split("\n").at(-1) ?? "";
      if (result.status !== 0 || !last.startsWith("{")) {
        throw new Error(
          `building release ${release} failed (exit ${result.status}):\n${result.stdout}\n${result.stderr}`,
        );
      }
      return [release, JSON.parse(last) as TestRelease] as const;
    }),
  );
  return Object.fromEntries(built);
}
