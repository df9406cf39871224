// Public entry point of the bank module (`chaind/x/bank`): balances, supply, denom metadata and the module.
export * from "./keeper.ts";
export { BALANCES_PREFIX, BANK_STORE_KEY } from "./keys.ts";
export * from "./module.ts";
