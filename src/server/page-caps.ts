// Which REST/gRPC list methods cap their page at MAX_HISTORY_PAGE_LIMIT (lists that grow with chain
// history), so that Swagger can say so next to the parameter a client sets. The caps themselves
// live in the handlers (tx-service.ts, the gov and auth query servers); this table only documents.
import { MAX_HISTORY_PAGE_LIMIT } from "../app/pagination.ts";

const PAGINATION_LIMIT = "pagination.limit";

/** Method full name (`pkg.Service.Method`) → the query parameters whose value is capped. */
const CAPPED: Readonly<Record<string, readonly string[]>> = {
  "chain.tx.v1beta1.Service.GetTxsEvent": ["limit", PAGINATION_LIMIT],
  "chain.tx.v1beta1.Service.GetBlockWithTxs": [PAGINATION_LIMIT],
  "chain.base.tendermint.v1beta1.Service.GetLatestValidatorSet": [PAGINATION_LIMIT],
  "chain.base.tendermint.v1beta1.Service.GetValidatorSetByHeight": [PAGINATION_LIMIT],
  "chain.gov.v1.Query.Proposals": [PAGINATION_LIMIT],
  "chain.gov.v1.Query.Votes": [PAGINATION_LIMIT],
  "chain.gov.v1.Query.Deposits": [PAGINATION_LIMIT],
  "chain.auth.v1beta1.Query.Accounts": [PAGINATION_LIMIT],
};

/** The Swagger words for a capped page-size parameter, or undefined when `parameter` is not capped. */
export function pageCapOf(
  methodFullName: string,
  parameter: string,
): { maximum: number; description: string } | undefined {
  if (!CAPPED[methodFullName]?.includes(parameter)) return undefined;
  const max = Number(MAX_HISTORY_PAGE_LIMIT);
  return {
    maximum: max,
    description: `Page size: 0 means ${max}; at most ${max} items per page (a larger value gets a page of ${max}).`,
  };
}
