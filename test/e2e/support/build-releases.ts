// Child-process script for the end-to-end tests: packs one release archive of an already compiled project into a
// directory and prints `{"archive":...,"sha256":...}` as its last line. It runs apart from the test process
// because packing copies files synchronously for seconds, which would stall the servers and pollers of the test
// (and so that two releases can be packed on two cores at once).
//
//   node test/e2e/support/build-releases.ts <project root> <out dir> <release>
import { buildRelease } from "../../../scripts/release.ts";

const [projectRoot, outDir, release] = process.argv.slice(2);
if (projectRoot === undefined || outDir === undefined || release === undefined) {
  process.stderr.write("usage: build-releases.ts <project root> <out dir> <release>\n");
  process.exit(2);
}
const built = await buildRelease({ release, outDir, skipBuild: true, projectRoot });
process.stdout.write(`${JSON.stringify(built)}\n`);
