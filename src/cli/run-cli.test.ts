// runCli's own errors, before the command tree runs: a chain developer's mistake in the chain handed to it (a bad
// identity, a lazy chain's definition that disagrees with its manifest) is one line on stderr and status 1.
import assert from "node:assert/strict";
import { test } from "node:test";
import { STANDARD_CHAIN, useChain } from "../runtime/current-chain.ts";
import { lazyChain } from "../runtime/lazy-chain.ts";
import { type ChainManifest, defineChain } from "../runtime/release.ts";
import { runCli } from "./run-cli.ts";

/** Runs the CLI on `args` (not the process's own argv: no relaunch, no exit backstop), capturing stderr. */
async function run(chain: Parameters<typeof runCli>[0], args: string[]): Promise<{ stderr: string; status: number }> {
  let stderr = "";
  const write = process.stderr.write;
  process.stderr.write = ((text: string) => {
    stderr += text;
    return true;
  }) as typeof process.stderr.write;
  try {
    await runCli(chain, ["node", "mychaind", ...args]);
    return { stderr, status: Number(process.exitCode ?? 0) };
  } finally {
    process.stderr.write = write;
    process.exitCode = 0;
    useChain(STANDARD_CHAIN);
  }
}

test("a lazy chain whose definition disagrees with its manifest: one line naming the difference, status 1", async () => {
  const manifest: ChainManifest = { name: "mychaind", releases: [{ name: "v1", version: "1.0.0" }] };
  const definition = defineChain({ name: "mychaind", releases: [{ name: "v1", version: "1.0.1" }] });
  const { stderr, status } = await run(
    lazyChain(manifest, async () => definition),
    ["genesis", "validate"],
  );
  assert.equal(status, 1);
  assert.match(stderr, /^Error: chain "mychaind" does not match its manifest .*releases: .*"1\.0\.0".*"1\.0\.1".*\n$/);
  assert.equal(stderr.split("\n").length, 2, "one line");
});

test("a chain with an invalid identity: one line naming the value, status 1", async () => {
  const manifest: ChainManifest = {
    name: "mychaind",
    releases: [{ name: "v1", version: "1.0.0" }],
    identity: { denom: "u" },
  };
  const { stderr, status } = await run(
    lazyChain(manifest, async () => {
      throw new Error("`version` reads the manifest alone");
    }),
    ["version"],
  );
  assert.equal(status, 1);
  assert.match(stderr, /^Error: chain "mychaind": invalid denom "u": expected .*\n$/);
});
