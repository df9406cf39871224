// Public entry point of the application framework (`chaind/app`): the ABCI 2.0-shaped App, its context, modules
// and module manager, store loaders, coins, the error registry and HaltError (what a PreBlock/EndBlock hook throws to
// stop the chain, as AppModule documents).
export * from "./base-app.ts";
export * from "./coins.ts";
export * from "./context.ts";
export * from "./dec-coins.ts";
export * from "./errors.ts";
export * from "./halt.ts";
export * from "./module.ts";
export * from "./module-cli.ts";
export * from "./module-manager.ts";
export * from "./store-loader.ts";
