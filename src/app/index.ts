// Public entry point of the application framework (`chaind/app`): the ABCI 2.0-shaped App, its context, modules
// and module manager, store loaders, coins and the error registry.
export * from "./base-app.ts";
export * from "./coins.ts";
export * from "./context.ts";
export * from "./dec-coins.ts";
export * from "./errors.ts";
export * from "./module.ts";
export * from "./module-manager.ts";
export * from "./store-loader.ts";
