// Pagination flags of list queries (upstream's --page-key, --offset, --limit, --count-total, --reverse),
// turned into a `chain.base.query.v1beta1.PageRequest`.
import type { Command } from "commander";
import { CliError } from "./errors.ts";
import { parseUint64 } from "./flags.ts";

/** The PageRequest fields a list query sends. */
export interface PageRequestInit {
  key: Uint8Array;
  offset: bigint;
  limit: bigint;
  countTotal: boolean;
  reverse: boolean;
}

/** Adds the pagination flags to a list query. */
export function addPagingFlags(command: Command): Command {
  return command
    .option("--page-key <key>", "base64 next_key of the previous page (exclusive with --offset)")
    .option("--offset <n>", "number of entries to skip (exclusive with --page-key)")
    .option("--limit <n>", "page size (0 = the node's default)")
    .option("--count-total", "also count the total number of entries")
    .option("--reverse", "results in descending order");
}

/** The PageRequest of the pagination flags; errors name the flag and the expected form. */
export function readPageRequest(options: Record<string, unknown>): PageRequestInit {
  const pageKey = options.pageKey === undefined ? "" : String(options.pageKey);
  const offset = options.offset === undefined ? 0n : parseUint64(String(options.offset), "--offset", 64);
  if (pageKey !== "" && offset > 0n) throw new CliError("--page-key and --offset cannot be used together");
  let key = new Uint8Array();
  if (pageKey !== "") {
    if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(pageKey)) {
      throw new CliError(`invalid --page-key "${pageKey}": expected the base64 next_key of a previous page`);
    }
    key = new Uint8Array(Buffer.from(pageKey, pageKey.includes("-") || pageKey.includes("_") ? "base64url" : "base64"));
  }
  return {
    key,
    offset,
    limit: options.limit === undefined ? 0n : parseUint64(String(options.limit), "--limit", 64),
    countTotal: options.countTotal === true,
    reverse: options.reverse === true,
  };
}
