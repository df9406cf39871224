// Public entry point of the gov v1 module (`chaind/x/gov`).
export * from "./keeper.ts";
export * from "./module.ts";
