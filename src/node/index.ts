// Public entry point of the node as a library (`chaind/node`): start a node of a chain, initialise a home, the dev
// chain and the upgrade dry run.
export * from "./dev-chain.ts";
export * from "./dry-run.ts";
export * from "./init-node.ts";
export * from "./start-node.ts";
