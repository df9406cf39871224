// Public entry point of the replay mode (`chaind/replay`): the release line of any chain definition, the switching
// App that runs it, and `replayHome` (what `chaind replay` does). The CLI wires them for every chain already
// (`start --replay-releases`, `replay`); these are for a chain developer's own tools and tests.

export { ReleaseLineError } from "../runtime/release-history.ts";
export * from "./chain-line.ts";
export * from "./release-line.ts";
export * from "./replay-home.ts";
export * from "./switching-app.ts";
export * from "./upgrade-records.ts";
