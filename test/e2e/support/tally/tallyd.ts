#!/usr/bin/env node
// `tallyd`: a test chain with an identity of its own (prefix `tally`, denom `utally`, dev chain `tally-dev`,
// binary `tallyd`) and the standard modules, to show that nothing of the reference chain's identity leaks into
// another chain: test/e2e/chain-identity.test.ts runs it as a real process, the release tests package it.
import { runCli } from "chaind/cli";
import { defineChain } from "chaind/runtime";

/** The tally chain: two releases of the standard modules (v2 entered by upgrade "v2"), its own identity and release variable. */
export const tallyChain = defineChain({
  name: "tallyd",
  identity: { bech32Prefix: "tally", denom: "utally", devChainId: "tally-dev" },
  releases: [
    { name: "v1", version: "1.0.0" },
    { name: "v2", version: "2.0.0", upgradesFrom: ["v1"], upgrade: { name: "v2" } },
  ],
  defaultRelease: "v1",
  releaseEnv: "TALLYD_RELEASE",
});

await runCli(tallyChain);
