// Public entry point of the testing kit (`chaind/testing`), the counterpart of the SDK's simapp helpers: a real App
// of any release driven block by block (built by the node's own app builder), test keys, signed txs and genesis
// helpers. Not part of the runtime bundle (tsconfig.build.json leaves src/testing out; dist/package.json does not
// export it).
export { genesisFor, packAny, signTx, type TestKey, testKey } from "../app/testing.ts";
export * from "./processes.ts";
export * from "./test-node.ts";
