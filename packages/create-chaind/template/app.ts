// The __BINARY__ chain: its identity (address prefix, denom, dev chain id), the standard modules plus the
// `guestbook` module (modules/guestbook.ts), and two releases. Release v1 keeps the guestbook in store
// `entries_v1` at consensus version 1; release v2 performs upgrade "v2", which renames that store to `guestbook`,
// adds the store `guestbook_stats` and migrates the module to version 2 (which fills it). __RELEASE_ENV__ picks the
// release a process runs.
import { type ChainDefinition, defineChain, type Release } from "chaind/runtime";
import type { Upgrade } from "chaind/x/upgrade";
import { guestbookCli } from "./client/cli-ref.ts";
import { guestbookModule, STATS_STORE } from "./modules/guestbook.ts";

/** v1: guestbook at version 1 in store `entries_v1`. */
export const v1: Release = {
  name: "v1",
  version: "1.0.0",
  modules: () => [guestbookModule({ storeKey: "entries_v1", consensusVersion: 1n })],
};

/**
 * Upgrade "v2": the store rename and the new store, mounted before the upgrade's block runs; the default handler
 * then runs the guestbook's migration 1 → 2 (modules/guestbook.ts), which rewrites the entries and fills the new store.
 */
export const upgradeV2: Upgrade = {
  name: "v2",
  storeUpgrades: {
    added: [STATS_STORE],
    renamed: [{ oldKey: "entries_v1", newKey: "guestbook" }],
    deleted: [],
  },
};

/** v2: guestbook at version 2 in stores `guestbook` and `guestbook_stats`; takes a chain over from v1 through upgrade "v2". */
export const v2: Release = {
  name: "v2",
  version: "2.0.0",
  upgradesFrom: ["v1"],
  modules: () => [guestbookModule({ storeKey: "guestbook", consensusVersion: 2n })],
  upgrade: upgradeV2,
};

/** The chain: binary `__BINARY__`, its own identity, releases v1 and v2. */
export const chain: ChainDefinition = defineChain({
  name: "__BINARY__",
  identity: { bech32Prefix: "__PREFIX__", denom: "__DENOM__", devChainId: "__CHAIN_ID__" },
  releases: [v1, v2],
  defaultRelease: "v1",
  releaseEnv: "__RELEASE_ENV__",
  // The guestbook's `query`/`tx` commands and its types for the CLI (client/cli-ref.ts).
  moduleClis: [guestbookCli],
});
