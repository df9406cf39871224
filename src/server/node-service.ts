// `chain.base.node.v1beta1.Service`: the node's configuration and status, including the earliest and
// latest queryable heights (docs/CONTRACT.md §6), so a client can find the oldest height it may ask for.
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { GasPrice } from "../config/dec-coins.ts";
import { Service as NodeService } from "../gen/chain/base/node/v1beta1/query_pb.js";
import type { NodeHooks, QueryBackend } from "./query-backend.ts";
import type { ServedRoute } from "./served-routes.ts";
import { serviceRoutes } from "./service-routes.ts";

/** The app.toml facts the Config method reports. */
export interface NodeConfigFacts {
  minimumGasPrices: readonly GasPrice[];
  /** `pruning-keep-recent` / `pruning-interval` as written (upstream echoes them, even for "default"). */
  pruningSettings: { keepRecent: bigint; interval: bigint };
  haltHeight: bigint;
}

/** The served routes of `chain.base.node.v1beta1.Service`. */
export function nodeServiceRoutes(backend: QueryBackend, hooks: NodeHooks, config: NodeConfigFacts): ServedRoute[] {
  return serviceRoutes(NodeService, {
    config: async () => ({
      minimumGasPrice: config.minimumGasPrices.map((coin) => `${decimal18(coin.amount)}${coin.denom}`).join(","),
      pruningKeepRecent: String(config.pruningSettings.keepRecent),
      pruningInterval: String(config.pruningSettings.interval),
      haltHeight: config.haltHeight,
    }),
    status: async (_request, at) => {
      const block = await hooks.blockStatus?.(at.height);
      return {
        earliestStoreHeight: backend.earliestHeight(),
        height: at.height,
        timestamp: block === undefined ? undefined : timestampFromDate(block.time),
        appHash: block?.appHash,
        validatorHash: block?.validatorsHash,
      };
    },
  });
}

// Upstream prints gas prices as DecCoins: 18 fractional digits ("0.025000000000000000stake").
function decimal18(amount: string): string {
  const [whole, fraction = ""] = amount.split(".");
  return `${whole}.${fraction.padEnd(18, "0")}`;
}
