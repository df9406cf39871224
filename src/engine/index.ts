// Public entry point of the embedded single-validator consensus engine (`chaind/engine`).
export * from "./embedded-node.ts";
