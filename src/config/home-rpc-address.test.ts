// Which node a client asks without --node (docs/CONTRACT.md §8): the home's config.toml rpc.laddr, dialled on
// loopback when it names every interface; nothing when the home has no config.toml; one clear error otherwise.
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { renderConfigToml } from "./config-toml-template.ts";
import { ConfigError } from "./errors.ts";
import { dialAddress, homeRpcAddress } from "./home-rpc-address.ts";
import { parseListenAddress } from "./listen-address.ts";

let root: string;

before(async () => {
  root = await mkdtemp(join(tmpdir(), "home-rpc-address-"));
});

after(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A home whose config.toml holds `text`. */
async function homeWith(name: string, text: string): Promise<string> {
  const home = join(root, name);
  await mkdir(join(home, "config"), { recursive: true });
  await writeFile(join(home, "config", "config.toml"), text);
  return home;
}

test("dialAddress: wildcard hosts are dialled on loopback, others as written", () => {
  const dial = (text: string) =>
    dialAddress(parseListenAddress(text) as NonNullable<ReturnType<typeof parseListenAddress>>);
  assert.equal(dial("tcp://0.0.0.0:26657"), "tcp://127.0.0.1:26657");
  assert.equal(dial("tcp://:26657"), "tcp://127.0.0.1:26657");
  assert.equal(dial("tcp://[::]:26657"), "tcp://[::1]:26657");
  assert.equal(dial("tcp://[::1]:5"), "tcp://[::1]:5");
  assert.equal(dial("tcp://10.0.0.5:26657"), "tcp://10.0.0.5:26657");
  assert.throws(() => dial("unix:///tmp/rpc.sock"), /only tcp:\/\/ addresses/);
});

test("homeRpcAddress: the home's rpc.laddr, the key's default when absent, nothing without a config.toml", async () => {
  assert.equal(
    homeRpcAddress(await homeWith("set", '[rpc]\nladdr = "tcp://127.0.0.1:31000"\n')),
    "tcp://127.0.0.1:31000",
  );
  assert.equal(
    homeRpcAddress(await homeWith("wildcard", '[rpc]\nladdr = "tcp://0.0.0.0:31001"\n')),
    "tcp://127.0.0.1:31001",
  );
  assert.equal(homeRpcAddress(await homeWith("absent", 'moniker = "x"\n')), "tcp://127.0.0.1:26657");
  // The template `init` writes: its default.
  assert.equal(homeRpcAddress(await homeWith("template", renderConfigToml({}))), "tcp://127.0.0.1:26657");
  assert.equal(homeRpcAddress(join(root, "no-such-home")), undefined);
  // A file where the home (or its config/) should be: not a node's home either.
  await writeFile(join(root, "a-file"), "x");
  assert.equal(homeRpcAddress(join(root, "a-file")), undefined);
});

test("homeRpcAddress: a config.toml that names no dialable node is one ConfigError naming the file", async () => {
  const refused = async (name: string, text: string, pattern: RegExp) => {
    const home = await homeWith(name, text);
    assert.throws(
      () => homeRpcAddress(home),
      (error: unknown) =>
        error instanceof ConfigError &&
        error.message.includes(join(home, "config", "config.toml")) &&
        pattern.test(error.message),
    );
  };
  await refused("unix", '[rpc]\nladdr = "unix:///tmp/rpc.sock"\n', /rpc\.laddr: .*tcp only: give --node/);
  await refused("scheme-less", '[rpc]\nladdr = "127.0.0.1:26657"\n', /rpc\.laddr: expected an address with a scheme/);
  await refused("syntax", "[rpc\nladdr = 1\n", /invalid TOML syntax/);
  const unreadable = join(root, "dir-as-file");
  await mkdir(join(unreadable, "config", "config.toml"), { recursive: true });
  assert.throws(
    () => homeRpcAddress(unreadable),
    (error: unknown) => error instanceof ConfigError,
  );
});
