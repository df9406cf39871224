// The bank Query service (chain.bank.v1beta1.Query). A missing balance is amount "0", not an error;
// a bad address or denom is InvalidArgument; unknown metadata is NotFound.

import { fromBinary } from "@bufbuild/protobuf";
import { coinToProto, parseAmount, validateDenom } from "../../app/coins.ts";
import { GrpcCode, GrpcStatusError } from "../../app/errors.ts";
import type { ServiceHandlers } from "../../app/module.ts";
import { paginate } from "../../app/pagination.ts";
import { fromUtf8 } from "../../bytes/text.ts";
import { MetadataSchema } from "../../gen/chain/bank/v1beta1/bank_pb.js";
import type { Query } from "../../gen/chain/bank/v1beta1/query_pb.js";
import { accountAddressFromBech32 } from "../auth/account.ts";
import type { BankKeeper } from "./keeper.ts";
import {
  addressBalancesPrefix,
  DENOM_METADATA_PREFIX,
  denomOwnersPrefix,
  SEND_ENABLED_PREFIX,
  SUPPLY_PREFIX,
} from "./keys.ts";

/** Handlers of `chain.bank.v1beta1.Query`. */
export function bankQueryServer(keeper: BankKeeper): ServiceHandlers<typeof Query> {
  const allBalances = async (
    request: { address: string; pagination?: Parameters<typeof paginate>[2] },
    ctx: Parameters<typeof keeper.getBalance>[0],
  ) => {
    const address = parseAddress(request.address);
    const page = await paginate(keeper.store(ctx), addressBalancesPrefix(address), request.pagination, storedCoin);
    return { balances: page.items, pagination: page.pagination };
  };
  const metadataOf = async (denom: string, ctx: Parameters<typeof keeper.getBalance>[0]) => {
    // Upstream checks the denom's shape (an empty one too: "invalid denom: ") before looking it up.
    checkDenom(denom);
    const metadata = await keeper.getDenomMetadata(ctx, denom);
    if (metadata === undefined) throw new GrpcStatusError(GrpcCode.NotFound, `client metadata for denom ${denom}`);
    return { metadata };
  };
  const denomOwners = async (
    request: { denom: string; pagination?: Parameters<typeof paginate>[2] },
    ctx: Parameters<typeof keeper.getBalance>[0],
  ) => {
    checkDenom(request.denom);
    const page = await paginate(
      keeper.store(ctx),
      denomOwnersPrefix(request.denom),
      request.pagination,
      async (key) => ({
        address: keeper.accountKeeper.addressToString(key),
        balance: coinToProto(await keeper.getBalance(ctx, key, request.denom)),
      }),
    );
    return { denomOwners: page.items, pagination: page.pagination };
  };
  return {
    async balance(request, ctx) {
      // The denom first, as upstream's Balance.
      checkDenom(request.denom);
      const address = parseAddress(request.address);
      return { balance: coinToProto(await keeper.getBalance(ctx, address, request.denom)) };
    },
    allBalances,
    spendableBalances: allBalances,
    async spendableBalanceByDenom(request, ctx) {
      const address = parseAddress(request.address);
      checkDenom(request.denom);
      return { balance: coinToProto(await keeper.getBalance(ctx, address, request.denom)) };
    },
    async totalSupply(request, ctx) {
      const page = await paginate(keeper.store(ctx), SUPPLY_PREFIX, request.pagination, storedCoin);
      return { supply: page.items, pagination: page.pagination };
    },
    async supplyOf(request, ctx) {
      checkDenom(request.denom);
      return { amount: coinToProto(await keeper.getSupply(ctx, request.denom)) };
    },
    async params(_request, ctx) {
      return { params: await keeper.getParams(ctx) };
    },
    async denomMetadata(request, ctx) {
      return metadataOf(request.denom, ctx);
    },
    async denomMetadataByQueryString(request, ctx) {
      return metadataOf(request.denom, ctx);
    },
    async denomsMetadata(request, ctx) {
      const page = await paginate(keeper.store(ctx), DENOM_METADATA_PREFIX, request.pagination, (_key, value) =>
        fromBinary(MetadataSchema, value),
      );
      return { metadatas: page.items, pagination: page.pagination };
    },
    denomOwners,
    denomOwnersByQuery: denomOwners,
    async sendEnabled(request, ctx) {
      if (request.denoms.length > 0) {
        const sendEnabled = [];
        for (const denom of request.denoms) {
          const enabled = await keeper.getSendEnabled(ctx, denom);
          if (enabled !== undefined) sendEnabled.push({ denom, enabled });
        }
        return { sendEnabled };
      }
      const page = await paginate(keeper.store(ctx), SEND_ENABLED_PREFIX, request.pagination, (key, value) => ({
        denom: fromUtf8(key),
        enabled: value[0] === 1,
      }));
      return { sendEnabled: page.items, pagination: page.pagination };
    },
  };
}

/**
 * The coin a balance or supply entry holds (denom key, decimal amount value), as the wire shape.
 * Stored amounts are canonical decimal text (the keeper writes `amount.toString()`): such text is
 * used as is; anything else goes through parseAmount, which prints it canonically or throws.
 */
function storedCoin(key: Uint8Array, value: Uint8Array): { denom: string; amount: string } {
  const amount = asciiText(value);
  return {
    denom: asciiText(key) ?? fromUtf8(key),
    amount:
      amount !== undefined && isCanonicalAmount(amount)
        ? amount
        : coinToProto({ denom: "", amount: parseAmount(fromUtf8(value)) }).amount,
  };
}

// A 256-bit amount has at most 78 digits; shorter digit strings are always in range.
const SAFE_AMOUNT_DIGITS = 77;

function isCanonicalAmount(text: string): boolean {
  if (text.length === 0 || text.length > SAFE_AMOUNT_DIGITS) return false;
  if (text.length > 1 && text.charCodeAt(0) === 48) return false; // a leading zero
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/** Short ASCII bytes as a string without the UTF-8 decoder (denoms and amounts are ASCII); else undefined. */
function asciiText(bytes: Uint8Array): string | undefined {
  if (bytes.length > 128) return undefined;
  let text = "";
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (b >= 0x80) return undefined;
    text += String.fromCharCode(b);
  }
  return text;
}

function parseAddress(address: string): Uint8Array {
  // Upstream's handlers prefix every address-codec error, the empty address's too.
  if (address === "") {
    throw new GrpcStatusError(GrpcCode.InvalidArgument, "invalid address: empty address string is not allowed");
  }
  try {
    return accountAddressFromBech32(address);
  } catch (err) {
    throw new GrpcStatusError(GrpcCode.InvalidArgument, `invalid address: ${(err as Error).message}`);
  }
}

function checkDenom(denom: string): void {
  try {
    validateDenom(denom);
  } catch (err) {
    throw new GrpcStatusError(GrpcCode.InvalidArgument, (err as Error).message);
  }
}
