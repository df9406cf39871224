// A chain project as a chain developer gets one, for test/e2e/create-chaind.test.ts: both packages of this
// repository packed with `npm pack` (chaind from its compiled dist/, create-chaind from packages/create-chaind), the
// scaffolder run from its tarball with `npm exec` (what `npm create chaind` does) into a folder outside the
// repository, and a real `npm install` there. The scaffolder writes the `--chaind` value as the project's `chaind`
// dependency spec, so the test passes the chaind tarball's path: npm installs chaind from it and everything else
// (chaind's own dependencies, the pinned Node 24, TypeScript, esbuild, postject) from the registry.
//
// Every npm runs in an environment cleaned of what the repository's own `npm test` put there (npm_config_* from
// this repository's .npmrc, such as ignore-scripts; the node_modules/.bin folders on PATH; the test runner's
// context), so the project sees the machine as a developer's shell would: the system `node` and `npm`, whatever
// their version, and its own pinned Node 24 inside its npm scripts.
import { join } from "node:path";
import { type CommandResult, runCommand, tail } from "../processes.ts";
import { PROJECT, projectToPackage } from "../project-build.ts";

/** npm's steps get minutes, not seconds: the install fetches from the registry on a busy machine. */
export const NPM_TIMEOUT_MS = 600_000;

/** What {@link packAndScaffold} made. */
export interface PackedProject {
  /** The tarball of chaind (`npm pack` of its compiled dist/). */
  chaindTarball: string;
  /** The tarball of create-chaind. */
  scaffolderTarball: string;
  /** The scaffolded, installed project. */
  app: string;
  /** What the scaffolder printed. */
  scaffolded: string;
}

/** The environment of a shell outside this repository, plus `extra` (see the file comment). */
export function outsideEnv(extra: Record<string, string> = {}): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^npm_/i.test(key) || key === "INIT_CWD" || key === "NODE_TEST_CONTEXT" || key === "NODE_OPTIONS") continue;
    env[key] = value;
  }
  env.PATH = (process.env.PATH ?? "/usr/bin:/bin")
    .split(":")
    .filter((entry) => !/node_modules[/\\]\.bin$/.test(entry) && !entry.includes("node-gyp-bin"))
    .join(":");
  return { ...env, ...extra };
}

/** `npm <args>` in `cwd`, outside the repository's environment; a failure is an error with npm's output. */
export async function npm(args: string[], cwd: string, extra: Record<string, string> = {}): Promise<CommandResult> {
  const result = await runCommand("npm", args, { cwd, env: outsideEnv(extra), timeoutMs: NPM_TIMEOUT_MS });
  if (result.status !== 0) {
    throw new Error(
      `npm ${args.join(" ")} (in ${cwd}) exited with ${result.status ?? result.signal}\nstdout:\n${tail(result.stdout)}\nstderr:\n${tail(result.stderr)}`,
    );
  }
  return result;
}

/** `npm pack <folder>` into `dir`; the tarball's path. */
async function pack(folder: string, dir: string): Promise<string> {
  const { stdout } = await npm(["pack", folder, "--pack-destination", dir, "--json"], dir);
  const [report] = JSON.parse(stdout) as { filename: string }[];
  return join(dir, report.filename);
}

/**
 * Packs chaind and create-chaind into `dir`, scaffolds `<dir>/<settings.name>` from the scaffolder's tarball with
 * the chaind tarball as its dependency, and runs `npm install` in it.
 */
export async function packAndScaffold(
  dir: string,
  settings: { name: string; prefix: string; denom: string },
): Promise<PackedProject> {
  const root = await projectToPackage(dir);
  const chaindTarball = await pack(join(root, "dist"), dir);
  const scaffolderTarball = await pack(join(PROJECT, "packages", "create-chaind"), dir);

  const app = join(dir, settings.name);
  const options = ["--name", settings.name, "--prefix", settings.prefix, "--denom", settings.denom];
  // A private cache for npm exec: the tarball's path names the folder npm unpacks it into, new on every run.
  const exec = ["exec", "--yes", "--cache", join(dir, "npx-cache"), "--package", scaffolderTarball, "--"];
  const { stdout } = await npm([...exec, "create-chaind", app, ...options, "--chaind", chaindTarball], dir);
  await npm(["install", "--no-audit", "--no-fund"], app);
  return { chaindTarball, scaffolderTarball, app, scaffolded: stdout };
}
