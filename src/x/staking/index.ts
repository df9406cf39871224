// Public entry point of the staking module and genutil (`chaind/x/staking`).
export * from "./genutil.ts";
export * from "./keeper.ts";
export * from "./module.ts";
