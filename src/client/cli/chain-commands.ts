// `chaind query tx`, `query txs` and `query block`: what the consensus RPC knows about blocks and txs
// (its tx index by hash and by events), printed as upstream's CLI prints it — a TxResponse with the
// decoded tx and block time, a SearchTxsResult, or CometBFT's block JSON.
import { create, type JsonValue } from "@bufbuild/protobuf";
import { Command, Option } from "commander";
import { SearchTxsResultSchema, type TxResponse, TxResponseSchema } from "../../gen/chain/base/abci/v1beta1/abci_pb.js";
import { RpcError, type RpcTxResult } from "../rpc/rpc-client.ts";
import type { ClientContext } from "./context.ts";
import { CliError } from "./errors.ts";
import { addQueryFlags, parseUint64 } from "./flags.ts";
import type { ClientSession } from "./session.ts";
import { txResponseFromRpc } from "./tx-response.ts";
import { blockTime, indexedTx } from "./tx-sender.ts";

const TX_LOOKUP_TYPES = ["hash", "acc_seq", "signature", "events"] as const;

/** `query tx <hash | address/sequence | signatures | events-query> [--type …]`. */
export function queryTxCommand(session: ClientSession): Command {
  return addQueryFlags(
    new Command("tx")
      .description(
        'Query a tx by hash (default), by signer address and sequence (--type acc_seq <addr>/<seq>), by signatures (--type signature <sig,...>) or search by events (--type events "<query>")',
      )
      .argument("<value>", "the tx hash, <address>/<sequence>, comma-separated base64 signatures, or an events query")
      .addOption(new Option("--type <type>", "what <value> is").choices([...TX_LOOKUP_TYPES]).default("hash"))
      .option("--page <n>", "with --type events: the page of results", "1")
      .option("--limit <n>", "with --type events: results per page", "30"),
  ).action(async (value: string, options: { type: string; page: string; limit: string }, command: Command) => {
    const ctx = session.open(command.optsWithGlobals());
    switch (options.type) {
      case "hash":
        ctx.printMessage(TxResponseSchema, await txByHash(ctx, value));
        return;
      case "acc_seq": {
        if (!/^[^/\s']+\/\d+$/.test(value)) {
          throw new CliError(`invalid address/sequence "${value}": expected <address>/<sequence>, e.g. chain1…/3`);
        }
        const txs = await searchAll(ctx, `tx.acc_seq='${value}'`);
        ctx.printMessage(TxResponseSchema, exactlyOne(txs, "address and sequence combination"));
        return;
      }
      case "signature": {
        const signatures = value.split(",").filter((s) => s !== "");
        if (signatures.length === 0 || signatures.some((s) => !/^[A-Za-z0-9+/]+={0,2}$/.test(s))) {
          throw new CliError(`invalid signatures "${value}": expected comma-separated base64 signatures`);
        }
        const query = signatures.map((s) => `tx.signature='${s}'`).join(" AND ");
        ctx.printMessage(TxResponseSchema, exactlyOne(await searchAll(ctx, query), "signatures"));
        return;
      }
      default: {
        const page = Number(parseUint64(options.page, "--page", 63));
        const limit = Number(parseUint64(options.limit, "--limit", 63));
        ctx.print(await searchTxs(ctx, eventsQuery(value), page, limit));
      }
    }
  });
}

/** `query txs --query "<events query>"` (upstream v0.50's search command). */
export function queryTxsCommand(session: ClientSession): Command {
  return addQueryFlags(
    new Command("txs")
      .description("Search txs by events, e.g. --query \"message.sender='chain1…' AND tx.height>5\"")
      .requiredOption("--query <query>", "CometBFT events query")
      .option("--page <n>", "the page of results", "1")
      .option("--limit <n>", "results per page", "30")
      .addOption(new Option("--order-by <order>", "order by height").choices(["asc", "desc"]).default("asc")),
  ).action(
    async (options: { query: string; page: string; limit: string; orderBy: "asc" | "desc" }, command: Command) => {
      const ctx = session.open(command.optsWithGlobals());
      const page = Number(parseUint64(options.page, "--page", 63));
      const limit = Number(parseUint64(options.limit, "--limit", 63));
      ctx.print(await searchTxs(ctx, eventsQuery(options.query), page, limit, options.orderBy));
    },
  );
}

/**
 * `query blocks --query "<query>"` (upstream v0.50): blocks whose FinalizeBlock events match, through the
 * node's `block_search`; prints upstream's SearchBlocksResult shape with CometBFT's block JSON.
 */
export function queryBlocksCommand(session: ClientSession): Command {
  return addQueryFlags(
    new Command("blocks")
      .description('Search blocks by their events, e.g. --query "block.height > 5"')
      .requiredOption("--query <query>", "CometBFT events query over block events and block.height")
      .option("--page <n>", "the page of results", "1")
      .option("--limit <n>", "results per page", "100")
      .addOption(new Option("--order-by <order>", "order by height").choices(["asc", "desc"]).default("asc")),
  ).action(
    async (options: { query: string; page: string; limit: string; orderBy: "asc" | "desc" }, command: Command) => {
      const ctx = session.open(command.optsWithGlobals());
      const page = parseUint64(options.page, "--page", 63);
      const limit = parseUint64(options.limit, "--limit", 63);
      if (page === 0n || limit === 0n) throw new CliError("--page and --limit must be at least 1");
      const found = await ctx.rpc.call<{ blocks: JsonValue[]; total_count: string }>("block_search", {
        query: options.query,
        page: page.toString(),
        per_page: limit.toString(),
        order_by: options.orderBy,
      });
      const total = BigInt(found.total_count);
      ctx.print({
        total_count: found.total_count,
        count: String(found.blocks.length),
        page_number: page.toString(),
        page_total: (total === 0n ? 1n : (total + limit - 1n) / limit).toString(),
        limit: limit.toString(),
        blocks: found.blocks,
      });
    },
  );
}

/** `query block [height]` (latest when absent), or `--type hash <hash>`: CometBFT's block JSON. */
export function queryBlockCommand(session: ClientSession): Command {
  return addQueryFlags(
    new Command("block")
      .description("Query a committed block by height (default: the latest) or by hash (--type hash)")
      .argument("[value]", "the block height, or its hash with --type hash")
      .addOption(new Option("--type <type>", "what [value] is").choices(["height", "hash"]).default("height")),
  ).action(async (value: string | undefined, options: { type: string }, command: Command) => {
    const ctx = session.open(command.optsWithGlobals());
    let result: JsonValue;
    if (options.type === "hash") {
      if (value === undefined || !/^[0-9a-fA-F]{64}$/.test(value)) {
        throw new CliError(`invalid block hash "${value ?? ""}": expected 64 hexadecimal characters`);
      }
      result = await ctx.rpc.call<JsonValue>("block_by_hash", { hash: Buffer.from(value, "hex").toString("base64") });
    } else {
      const height = value === undefined ? undefined : parseUint64(value, "height", 63);
      if (height === 0n) throw new CliError('invalid height "0": blocks start at height 1 (omit it for the latest)');
      result = (await ctx.rpc.block(height)) as unknown as JsonValue;
    }
    if ((result as { block?: unknown }).block === null) {
      throw new CliError(`no block ${options.type === "hash" ? `with hash ${value}` : `at height ${value}`}`);
    }
    ctx.print(result);
  });
}

/** The TxResponse of the tx with `hash`; `tx (<HASH>) not found` as upstream says it. */
export async function txByHash(ctx: ClientContext, hash: string): Promise<TxResponse> {
  if (!/^[0-9a-fA-F]{64}$/.test(hash)) {
    throw new CliError(`invalid tx hash "${hash}": expected 64 hexadecimal characters (the sha256 of the tx bytes)`);
  }
  try {
    return await indexedTx(ctx, hash.toUpperCase());
  } catch (err) {
    if (err instanceof RpcError && /not found/i.test(err.message)) {
      throw new CliError(`tx (${hash.toUpperCase()}) not found`, { cause: err });
    }
    throw err;
  }
}

/**
 * A CometBFT query from what the user typed: used as it is when it has quotes or comparison operators
 * beyond `=`; upstream's older `key=value&key=value` form is turned into `key='value' AND …`.
 */
export function eventsQuery(text: string): string {
  const trimmed = text.trim();
  if (trimmed === "") throw new CliError("the events query is empty: expected e.g. message.sender='chain1…'");
  if (/['"<>]|\bAND\b|\bCONTAINS\b|\bEXISTS\b/.test(trimmed)) return trimmed;
  const parts = trimmed.split("&").map((part) => {
    const match = /^([^=\s]+)=(.+)$/.exec(part.trim());
    if (match === null) {
      throw new CliError(
        `invalid event "${part}": expected {eventType}.{attributeKey}={value}, e.g. message.sender=chain1…`,
      );
    }
    return /^\d+$/.test(match[2]) && match[1] === "tx.height" ? `${match[1]}=${match[2]}` : `${match[1]}='${match[2]}'`;
  });
  return parts.join(" AND ");
}

/** One page of tx_search as upstream's SearchTxsResult JSON. */
export async function searchTxs(
  ctx: ClientContext,
  query: string,
  page: number,
  limit: number,
  orderBy: "asc" | "desc" = "asc",
): Promise<JsonValue> {
  if (page < 1) throw new CliError(`invalid --page "${page}": pages start at 1`);
  if (limit < 1) throw new CliError(`invalid --limit "${limit}": expected at least 1`);
  const found = await ctx.rpc.txSearch(query, { page, perPage: limit, orderBy });
  const txs = await withBlockTimes(ctx, found.txs);
  const total = BigInt(found.total_count);
  const result = create(SearchTxsResultSchema, {
    totalCount: total,
    count: BigInt(txs.length),
    pageNumber: BigInt(page),
    pageTotal: total === 0n ? 0n : (total + BigInt(limit) - 1n) / BigInt(limit),
    limit: BigInt(limit),
    txs,
  });
  return ctx.messageJson(SearchTxsResultSchema, result);
}

async function searchAll(ctx: ClientContext, query: string): Promise<TxResponse[]> {
  const found = await ctx.rpc.txSearch(query, { page: 1, perPage: 2 });
  return withBlockTimes(ctx, found.txs);
}

async function withBlockTimes(ctx: ClientContext, found: readonly RpcTxResult[]): Promise<TxResponse[]> {
  const times = new Map<string, string>();
  const responses: TxResponse[] = [];
  for (const tx of found) {
    let time = times.get(tx.height);
    if (time === undefined) {
      time = await blockTime(ctx, BigInt(tx.height));
      times.set(tx.height, time);
    }
    responses.push(txResponseFromRpc(tx, time));
  }
  return responses;
}

function exactlyOne(txs: TxResponse[], what: string): TxResponse {
  if (txs.length === 0) throw new CliError(`found no txs matching given ${what}`);
  if (txs.length > 1) throw new CliError(`found ${txs.length} txs matching given ${what}`);
  return txs[0];
}
