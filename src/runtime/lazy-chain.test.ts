// A lazy chain: the manifest answers without loading, the definition loads once and must agree with the manifest.
import assert from "node:assert/strict";
import { test } from "node:test";
import { currentChain, currentChainManifest, loadCurrentChain, STANDARD_CHAIN, useChain } from "./current-chain.ts";
import { lazyChain } from "./lazy-chain.ts";
import { type ChainManifest, defineChain } from "./release.ts";

const manifest: ChainManifest = {
  name: "lazyd",
  releases: [
    { name: "v1", version: "1.0.0" },
    { name: "v2", version: "2.0.0" },
  ],
  defaultRelease: "v1",
  releaseEnv: "LAZYD_RELEASE",
};
const definition = defineChain({ ...manifest, releases: manifest.releases.map((r) => ({ ...r })) });

test("the manifest answers before the chain loads; the definition loads once, then serves currentChain", async () => {
  let loads = 0;
  useChain(
    lazyChain(manifest, async () => {
      loads++;
      return definition;
    }),
  );
  try {
    assert.equal(currentChainManifest().name, "lazyd");
    assert.equal(loads, 0);
    assert.throws(() => currentChain(), /chain "lazyd" is not loaded yet/);
    assert.equal(await loadCurrentChain(), definition);
    assert.equal(await loadCurrentChain(), definition);
    assert.equal(loads, 1);
    assert.equal(currentChain(), definition);
  } finally {
    useChain(STANDARD_CHAIN);
  }
});

test("a definition that disagrees with its manifest is refused, naming both", async () => {
  const drifted = defineChain({ ...definition, releases: [{ name: "v1", version: "1.0.1" }] });
  const chain = lazyChain(manifest, async () => drifted);
  await assert.rejects(
    chain.load(),
    /chain "lazyd" does not match its manifest \(declare the same in both\): releases: the manifest says .*"1\.0\.0".*, the definition .*"1\.0\.1".*\]$/,
  );
});

test("a definition whose module CLIs differ from its manifest's is refused", async () => {
  const notes = {
    name: "notes",
    query: "Querying commands for the notes module",
    types: async () => [],
    load: async () => ({}),
  };
  const withCli = { ...definition, moduleClis: [notes] };
  await assert.rejects(
    lazyChain(manifest, async () => withCli).load(),
    /: moduleClis: the manifest says \[\], the definition \["notes"\]$/,
  );
  assert.equal(await lazyChain({ ...manifest, moduleClis: [notes] }, async () => withCli).load(), withCli);
});

test("a manifest without a release's upgradesFrom is refused, naming only the releases", async () => {
  const v1 = { name: "v1", version: "1.0.0" };
  const v2 = { name: "v2", version: "2.0.0", upgradesFrom: ["v1"], upgrade: { name: "v2" } };
  const chain = defineChain({ ...manifest, releases: [v1, v2] });
  await assert.rejects(lazyChain(manifest, async () => chain).load(), (err: Error) => {
    assert.equal(err.name, "ChainManifestMismatchError");
    assert.match(
      err.message,
      /: releases: the manifest says .*"upgradesFrom":\[\]\}\], the definition .*"upgradesFrom":\["v1"\]\}\]$/,
    );
    assert.doesNotMatch(err.message, /identity/, "only what differs");
    return true;
  });
});
