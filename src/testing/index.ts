// Public entry point of the testing kit (`chaind/testing`), the counterpart of the SDK's simapp helpers. In the
// package (dist/) for a chain's own tests, never in a release: runtime code never imports it, and the release bundle
// holds only what its entry points import.
// - test-node.ts: a release's App built by the node's own builder over LevelDB, driven block by block, restarted
//   as another release (upgrade tests);
// - test-chain.ts: a node home with funded test keys and a gentx validator, and that node run in this process;
// - chain-fixture.ts: a small in-memory chain with node hooks for the query servers' tests;
// - app.ts: test keys, signed txs, genesis balances and a minimal App (auth, bank, your modules);
// - upgrade-context.ts: a Context over a memory multistore with a captured logger;
// - processes.ts: a chain's binary as a real child process, JSON-RPC calls, waiting for heights.
// - broadcast.ts: sign with a test-keyring key, broadcast over the RPC and wait for the tx to commit.
// - governance.ts: schedule an upgrade by a gov proposal and a yes vote.
// - staking.ts: a chain with staking, gov and genutil whose validators come from real gentxs, block by block.
// Private helpers of this repository's own tests are not here: they live under test/ (test/support/<area>/).
export * from "./app.ts";
export * from "./broadcast.ts";
export * from "./chain-fixture.ts";
export * from "./governance.ts";
export * from "./processes.ts";
export {
  consensusKeyOf,
  createStakingTestChain,
  createValidatorMsg,
  type GenesisValidator,
  type StakingTestChain,
  type StakingTestChainOptions,
} from "./staking.ts";
export * from "./test-chain.ts";
export * from "./test-node.ts";
export * from "./upgrade-context.ts";
