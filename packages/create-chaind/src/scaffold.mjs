// The scaffolder's work: options checked (one-line errors naming the option, the value and what was expected), then
// the template copied into the target folder with its placeholders replaced. Nothing is written until every option
// has passed, and the target must be missing or empty, so a bad call leaves no half-written project.
import { readFileSync } from "node:fs";
import { mkdir, readdir, readFile, rename, writeFile } from "node:fs/promises";
import { join, relative, resolve } from "node:path";

const HERE = import.meta.dirname;
/** The template folder shipped with the package. */
export const TEMPLATE = join(HERE, "..", "template");
/** This package's version: the chaind version a new project depends on by default (they are released together). */
const VERSION = JSON.parse(readFileSync(join(HERE, "..", "package.json"), "utf8")).version;

export const USAGE = `Usage: create-chaind <dir> --name <chain> [options]

Writes a chain project built on the chaind package into <dir> (missing or empty).

Options:
  --name <chain>      the chain's name: lower-case letters, digits and "-", starting with a letter (e.g. tally)
  --binary <name>     the chain's binary (default: <chain>d, e.g. tallyd)
  --prefix <hrp>      bech32 account prefix (default: <chain> without "-", e.g. tally)
  --denom <denom>     bond and fee denom (default: u<prefix>, e.g. utally)
  --chain-id <id>     the dev chain id of \`<binary> dev\` (default: <chain>-dev)
  --chaind <spec>     the chaind dependency: a version range or a tarball path (default: ^${VERSION})
  -h, --help          this text
`;

// The same rules chaind's defineChain applies to an identity (src/config/chain-identity.ts), checked here first so
// the project is never written with values its chain would refuse at start.
const RULES = {
  name: [/^[a-z][a-z0-9-]{0,40}$/, 'lower-case letters, digits and "-", starting with a letter (e.g. "tally")'],
  binary: [
    /^[a-z][a-z0-9_-]{0,40}$/,
    'lower-case letters, digits, "_" and "-", starting with a letter (e.g. "tallyd")',
  ],
  prefix: [/^[a-z][a-z0-9]{0,40}$/, 'lower-case letters and digits starting with a letter (e.g. "tally")'],
  denom: [/^[a-zA-Z][a-zA-Z0-9/:._-]{2,127}$/, 'a letter then 2-127 letters, digits or /:._- (e.g. "utally")'],
  "chain-id": [/^[A-Za-z0-9._-]{1,50}$/, '1-50 letters, digits, ".", "_" or "-" (e.g. "tally-dev")'],
};

/**
 * The project's settings from the command line's options, defaults filled in; throws on a value the chain could
 * not use.
 * @example settingsOf({ name: "tally" }).binary // "tallyd"
 */
export function settingsOf(values) {
  if (values.name === undefined) throw new Error("missing --name <chain>: the chain's name, e.g. --name tally");
  const name = values.name;
  const prefix = values.prefix ?? name.replaceAll("-", "");
  const settings = {
    name,
    binary: values.binary ?? `${name}d`,
    prefix,
    denom: values.denom ?? `u${prefix}`,
    "chain-id": values["chain-id"] ?? `${name}-dev`,
  };
  for (const [option, [pattern, expected]] of Object.entries(RULES)) {
    if (!pattern.test(settings[option])) {
      throw new Error(`invalid --${option} "${settings[option]}": expected ${expected}`);
    }
  }
  const chaind = values.chaind ?? `^${VERSION}`;
  if (chaind.trim() === "" || /["\\\s]/.test(chaind)) {
    throw new Error(`invalid --chaind "${chaind}": expected a version range or a tarball path without spaces`);
  }
  return { ...settings, chaind, releaseEnv: `${settings.binary.replace(/[^a-z0-9]/gi, "_").toUpperCase()}_RELEASE` };
}

/** The template's placeholders and what replaces them. */
function replacements(settings) {
  return [
    ["__NAME__", settings.name],
    ["__BINARY__", settings.binary],
    ["__PREFIX__", settings.prefix],
    ["__DENOM__", settings.denom],
    ["__CHAIN_ID__", settings["chain-id"]],
    ["__RELEASE_ENV__", settings.releaseEnv],
    ["__CHAIND__", settings.chaind],
  ];
}

/** Every file under `dir`, relative to it. */
async function filesUnder(dir, base = dir) {
  const out = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await filesUnder(path, base)));
    else out.push(relative(base, path));
  }
  return out;
}

/**
 * Writes the project for `settings` into `target` (missing or empty); returns the files written.
 * @example await scaffold("/tmp/tally", settingsOf({ name: "tally" }))
 */
export async function scaffold(target, settings) {
  let existing = [];
  try {
    existing = await readdir(target);
  } catch (err) {
    if (err.code !== "ENOENT") throw new Error(`cannot use ${target}: ${err.message}`);
  }
  if (existing.length > 0) throw new Error(`${target} is not empty: expected a missing or empty folder`);
  const written = [];
  const pairs = replacements(settings);
  for (const file of await filesUnder(TEMPLATE)) {
    const destination = join(
      target,
      pairs.reduce((path, [from, to]) => path.replaceAll(from, to), file),
    );
    await mkdir(join(destination, ".."), { recursive: true });
    // npm drops a package's .gitignore; the template keeps it as `gitignore`.
    const text = await readFile(join(TEMPLATE, file), "utf8");
    await writeFile(
      destination,
      pairs.reduce((body, [from, to]) => body.replaceAll(from, to), text),
    );
    written.push(relative(target, destination));
  }
  await rename(join(target, "gitignore"), join(target, ".gitignore")).catch(() => {});
  return written;
}

/** The command: parses nothing itself (bin/create-chaind.mjs does), checks, writes, and says what to run next. */
export async function main(values, positionals) {
  if (values.help) return USAGE;
  if (positionals.length !== 1) {
    throw new Error(`expected one target folder, got ${positionals.length}: create-chaind <dir> --name <chain>`);
  }
  const settings = settingsOf(values);
  const target = resolve(positionals[0]);
  const written = await scaffold(target, settings);
  return `Wrote ${written.length} files of chain ${settings.binary} into ${target}.

  cd ${positionals[0]}
  npm install
  npm start        # ${settings.binary} dev: a one-validator chain (prefix ${settings.prefix}, denom ${settings.denom})
  npm test
`;
}
