// The auth Query service (chain.auth.v1beta1.Query), with upstream's NotFound and InvalidArgument answers.

import { GrpcCode, GrpcStatusError } from "../../app/errors.ts";
import type { ServiceHandlers } from "../../app/module.ts";
import { capHistoryPage, paginate } from "../../app/pagination.ts";
import { currentBech32Prefixes } from "../../crypto/index.ts";
import type { Query } from "../../gen/chain/auth/v1beta1/query_pb.js";
import { accountAddressFromBech32, accountToAny, decodeAccount, toBaseAccount } from "./account.ts";
import type { AccountKeeper } from "./keeper.ts";
import { ACCOUNTS_PREFIX } from "./keys.ts";

/** Handlers of `chain.auth.v1beta1.Query`. */
export function authQueryServer(keeper: AccountKeeper): ServiceHandlers<typeof Query> {
  // Upstream's Account says "Address cannot be empty", its AccountInfo "address cannot be empty".
  const parseAddress = (address: string, emptyMessage = "Address cannot be empty"): Uint8Array => {
    if (address === "") throw new GrpcStatusError(GrpcCode.InvalidArgument, emptyMessage);
    try {
      return accountAddressFromBech32(address);
    } catch (err) {
      throw new GrpcStatusError(GrpcCode.InvalidArgument, `invalid address: ${(err as Error).message}`);
    }
  };
  return {
    async accounts(request, ctx) {
      const page = await paginate(
        ctx.kvStore(keeper.storeKey),
        ACCOUNTS_PREFIX,
        capHistoryPage(request.pagination),
        (key, value) => accountToAny(decodeAccount(value, key)),
      );
      return { accounts: page.items, pagination: page.pagination };
    },
    async account(request, ctx) {
      const address = parseAddress(request.address);
      const account = await keeper.getAccount(ctx, address);
      if (account === undefined) throw new GrpcStatusError(GrpcCode.NotFound, `account ${request.address} not found`);
      return { account: accountToAny(account) };
    },
    async accountAddressByID(request, ctx) {
      if (request.id !== 0n && request.accountId !== 0n) {
        throw new GrpcStatusError(
          GrpcCode.InvalidArgument,
          "requesting with id isn't supported, try to request using account-id",
        );
      }
      const accountNumber = request.accountId !== 0n ? request.accountId : request.id;
      if (accountNumber < 0n) throw new GrpcStatusError(GrpcCode.InvalidArgument, "Invalid account id");
      const address = await keeper.getAddressByAccountNumber(ctx, accountNumber);
      if (address === undefined) {
        throw new GrpcStatusError(GrpcCode.NotFound, `account address not found with account number ${accountNumber}`);
      }
      return { accountAddress: keeper.addressToString(address) };
    },
    async params(_request, ctx) {
      return { params: await keeper.getParams(ctx) };
    },
    async moduleAccounts(_request, ctx) {
      const accounts = [];
      for (const name of keeper.moduleAccountNames()) {
        // Like upstream, a module account not yet created is shown as it would be created (in the query's
        // discarded branch).
        accounts.push(accountToAny(await keeper.getModuleAccount(ctx, name)));
      }
      return { accounts };
    },
    async moduleAccountByName(request, ctx) {
      if (request.name === "") throw new GrpcStatusError(GrpcCode.InvalidArgument, "module name is empty");
      if (!keeper.moduleAccountNames().includes(request.name)) {
        throw new GrpcStatusError(GrpcCode.NotFound, `account ${request.name} not found`);
      }
      return { account: accountToAny(await keeper.getModuleAccount(ctx, request.name)) };
    },
    async bech32Prefix() {
      return { bech32Prefix: currentBech32Prefixes().acc };
    },
    async addressBytesToString(request) {
      if (request.addressBytes.length === 0) {
        // Upstream's text; upstream returns it as a plain error (Unknown, a REST 500), ours is an invalid argument
        // (400 code 3), as docs/CONTRACT.md §7 asks of every bad parameter.
        throw new GrpcStatusError(GrpcCode.InvalidArgument, "empty address bytes is not allowed");
      }
      try {
        return { addressString: keeper.addressToString(request.addressBytes) };
      } catch (err) {
        // Bytes of a length no address can have are the caller's mistake, not a server failure.
        throw new GrpcStatusError(GrpcCode.InvalidArgument, `invalid address bytes: ${(err as Error).message}`);
      }
    },
    async addressStringToBytes(request) {
      if (request.addressString.trim() === "") {
        throw new GrpcStatusError(GrpcCode.InvalidArgument, "empty address string is not allowed");
      }
      return { addressBytes: parseAddress(request.addressString) };
    },
    async accountInfo(request, ctx) {
      const address = parseAddress(request.address, "address cannot be empty");
      const account = await keeper.getAccount(ctx, address);
      if (account === undefined) throw new GrpcStatusError(GrpcCode.NotFound, `account ${request.address} not found`);
      return { info: toBaseAccount(account) };
    },
  };
}
