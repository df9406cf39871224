// CometBFT v0.38's `block_search`: blocks whose FinalizeBlock events (indexed attributes, as CometBFT's block
// indexer keeps them) and `block.height` satisfy a query in the tx_search language. The embedded engine has no
// separate block index: it reads the stored results of the heights the query's `block.height` conditions allow
// (all stored heights when there are none), which is fine for the chains it runs (one validator, pruned stores).
import { conditionMatchesValue, parseTxQuery, type QueryCondition, TxQueryError } from "../tx-query.ts";
import { blockIdJson, blockJson, type Json } from "./json-shapes.ts";
import { internalError } from "./rpc-error.ts";
import type { RpcContext, RpcMethod } from "./rpc-method-types.ts";

const MAX_PER_PAGE = 100n;
const DEFAULT_PER_PAGE = 30n;

/** The height range `block.height` conditions allow, within [base, latest]. */
function heightRange(conditions: readonly QueryCondition[], base: bigint, latest: bigint): [bigint, bigint] {
  let low = base;
  let high = latest;
  for (const c of conditions) {
    if (c.key !== "block.height" || c.operand?.kind !== "number" || c.operand.integer === undefined) continue;
    const v = c.operand.integer;
    if (c.op === "=") {
      // bigint: Math.max/min do not apply
      if (v > low) low = v;
      if (v < high) high = v;
    } else if (c.op === ">" && v + 1n > low) low = v + 1n;
    else if (c.op === ">=" && v > low) low = v;
    else if (c.op === "<" && v - 1n < high) high = v - 1n;
    else if (c.op === "<=" && v < high) high = v;
  }
  return [low, high];
}

async function matches(ctx: RpcContext, height: bigint, conditions: readonly QueryCondition[]): Promise<boolean> {
  const events: Record<string, string[]> = { "block.height": [height.toString()] };
  const results = await ctx.engine.store.results(height);
  for (const e of results?.events ?? []) {
    for (const a of e.attributes) {
      if (!a.index || e.type === "" || a.key === "") continue;
      const key = `${e.type}.${a.key}`;
      events[key] = [...(events[key] ?? []), a.value];
    }
  }
  return conditions.every((c) => (events[c.key] ?? []).some((v) => conditionMatchesValue(c, v)));
}

/** The `block_search` method (params query, page, per_page, order_by). */
export const blockSearch: RpcMethod = {
  params: [
    { name: "query", type: "string" },
    { name: "page", type: "int64" },
    { name: "per_page", type: "int64" },
    { name: "order_by", type: "string" },
  ],
  async handle(args, ctx) {
    let conditions: QueryCondition[];
    try {
      conditions = parseTxQuery((args.query as string | undefined) ?? "");
    } catch (error) {
      if (error instanceof TxQueryError) throw internalError(error.message, error);
      throw error;
    }
    const orderBy = (args.order_by as string | undefined) ?? "";
    if (orderBy !== "" && orderBy !== "asc" && orderBy !== "desc") {
      throw internalError("expected order_by to be either `asc` or `desc` or empty");
    }
    const perPageArg = args.per_page as bigint | undefined;
    const perPage =
      perPageArg === undefined || perPageArg <= 0n
        ? DEFAULT_PER_PAGE
        : perPageArg > MAX_PER_PAGE
          ? MAX_PER_PAGE
          : perPageArg;
    const store = ctx.engine.store;
    const [low, high] = heightRange(conditions, store.base, ctx.engine.committedHeight);
    const heights: bigint[] = [];
    for (let h = low; h <= high; h++) if (await matches(ctx, h, conditions)) heights.push(h);
    // Unlike tx_search (ascending by default), CometBFT's block_search lists the newest first unless asked "asc".
    if (orderBy !== "asc") heights.reverse();
    const pages = heights.length === 0 ? 1n : (BigInt(heights.length) + perPage - 1n) / perPage;
    const page = (args.page as bigint | undefined) ?? 1n;
    if (page <= 0n || page > pages) throw internalError(`page should be within [1, ${pages}] range, given ${page}`);
    const start = Number((page - 1n) * perPage);
    const blocks: Json[] = [];
    for (const h of heights.slice(start, start + Number(perPage))) {
      const stored = await store.block(h);
      if (stored !== undefined) blocks.push({ block_id: blockIdJson(stored.blockId), block: blockJson(stored.block) });
    }
    return { blocks, total_count: String(heights.length) };
  },
};
