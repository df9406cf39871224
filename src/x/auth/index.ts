// Public entry point of the auth module (`chaind/x/auth`): accounts, the ante handler and the module.
export * from "./ante.ts";
export * from "./keeper.ts";
export * from "./module.ts";
