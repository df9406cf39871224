// A chain of one's own (defineChain with its own name, e.g. examples/guestbook) runs as its own binary: the hints,
// errors and config files it writes name that binary, never `chaind` (src/config/home.ts currentBinaryName).
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { after, before, test } from "node:test";
import { loadHomeSnapshot } from "../node/snapshot-home.ts";
import { replayHome } from "../replay/replay-home.ts";
import { SnapshotNotFoundError } from "../snapshots/errors.ts";
import { DataDirectoryLockedError, DataDirectoryMissingError } from "../store/errors.ts";
import { renderAppToml } from "./app-toml-template.ts";
import { renderConfigToml } from "./config-toml-template.ts";
import { currentBinaryName, setBinaryName } from "./home.ts";

const SRC = resolve(import.meta.dirname, "..");
let dir: string;

before(async () => {
  setBinaryName("mychaind");
  dir = await mkdtemp(join(tmpdir(), "binary-name-texts-"));
});
after(async () => {
  setBinaryName("chaind");
  await rm(dir, { recursive: true, force: true });
});

// `chaind` as a word (not chaind-dev, chaind/app, .chaind).
const CHAIND_WORD = /(?<![\w./-])chaind(?![\w/-])/;

test("the config files a chain's own binary writes name that binary", () => {
  for (const [name, text] of [
    ["config.toml", renderConfigToml()],
    ["app.toml", renderAppToml()],
  ]) {
    // The telemetry prefix's default is the literal metric name "chaind" (app-config.ts), not the binary.
    const lines = text.split("\n").filter((line) => CHAIND_WORD.test(line) && !line.includes('empty means "chaind"'));
    assert.deepEqual(lines, [], name);
  }
  assert.match(renderConfigToml(), /`mychaind start --abci` listens here/);
  assert.match(renderAppToml(), /^# mychaind node settings \(app\.toml\)\.$/m);
});

test("errors and hints of a chain's own binary name that binary", async () => {
  assert.match(new SnapshotNotFoundError(5n, 1).message, /see `mychaind snapshots list`$/);
  assert.match(new DataDirectoryMissingError("/x").message, /\(mychaind init\)/);
  assert.match(new DataDirectoryLockedError("/x").message, /stop the other mychaind /);
  await assert.rejects(
    loadHomeSnapshot({ home: dir, archive: join(dir, "none.tar.gz") }),
    /expected a \.tar\.gz written by `mychaind snapshots dump`$/,
  );
  await assert.rejects(
    replayHome({ sourceHome: dir, home: join(tmpdir(), "binary-name-texts-none"), openApp: () => assert.fail() }),
    /has no config\/genesis\.json: expected a mychaind home$/,
  );
  assert.equal(currentBinaryName(), "mychaind");
});

function* sources(folder: string): Generator<string> {
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== "gen" && entry.name !== "testing") yield* sources(path);
    } else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts")) yield path;
  }
}

// Texts that say `chaind` on purpose: names of the framework's own data formats, fixed forever once written
// (a keyring's or an export's associated data, a cache stamp, the state store's marker), and the release payload.
const FORMAT_NAMES = [
  '"chaind keyring passphrase check"',
  '"chaind keyring private key v1"',
  '"chaind exported private key v1"',
  '"chaind cache stamp 1"',
  "no chaind format marker",
  '"not a chaind payload"',
];

test("no source text names chaind where the running chain's binary belongs", () => {
  // `chaind <word>` (a command to type, `a chaind home`) or `<word> chaind` outside comments.
  const hint = /\bchaind(?= [a-z])|\bchaind(?=['`]s )|(?<=[a-z] )chaind(?![\w./-])/;
  const offenders: string[] = [];
  for (const file of sources(SRC)) {
    readFileSync(file, "utf8")
      .split("\n")
      .forEach((line, index) => {
        const code = line.trimStart();
        if (code.startsWith("//") || code.startsWith("*") || code.startsWith("/*")) return;
        if (!hint.test(code) || FORMAT_NAMES.some((name) => code.includes(name))) return;
        if (/\bconst chaind = /.test(code)) return;
        offenders.push(`${relative(SRC, file)}:${index + 1}: ${code}`);
      });
  }
  assert.deepEqual(offenders, []);
});
