// The guestbook's CLI, light (the ModuleCli contract of chaind/app): what `guestbookd query --help` and
// `guestbookd tx --help` list, and loaders of the rest, so a command loads the guestbook's CLI only when it runs.
// The chain lists it in its definition (app.ts, `moduleClis`); nothing in the framework names the guestbook.
import type { ModuleCliRef } from "chaind/app";

/** `query guestbook …`, `tx guestbook …`, and the guestbook's types for `query tx` and `tx decode`. */
export const guestbookCli: ModuleCliRef = {
  name: "guestbook",
  query: "Querying commands for the guestbook module",
  tx: "Guestbook transaction subcommands",
  types: async () => [
    (await import("../gen/guestbook/v1/tx_pb.js")).file_guestbook_v1_tx,
    (await import("../gen/guestbook/v1/query_pb.js")).file_guestbook_v1_query,
  ],
  load: async () => (await import("./cli.ts")).guestbookModuleCli,
};
