// The bank Msg service: Send, MultiSend (one input), UpdateParams and SetSendEnabled (authority only),
// with upstream's checks in upstream's order.

import { type Coin, coinsFromProto, coinsToString, isValidCoins, validateDenom } from "../../app/coins.ts";
import {
  ErrInvalidAddress,
  ErrInvalidAuthority,
  ErrInvalidCoins,
  ErrInvalidRequest,
  ErrUnauthorized,
} from "../../app/errors.ts";
import type { ServiceHandlers } from "../../app/module.ts";
import type { Msg } from "../../gen/chain/bank/v1beta1/tx_pb.js";
import { accountAddressFromBech32 } from "../auth/account.ts";
import { ErrDuplicateEntry, ErrMultipleSenders, ErrNoInputs, ErrNoOutputs } from "./errors.ts";
import { type BankKeeper, type InputOutput, validateInputOutputs } from "./keeper.ts";

/** Handlers of `chain.bank.v1beta1.Msg`. */
export function bankMsgServer(keeper: BankKeeper): ServiceHandlers<typeof Msg> {
  const checkAuthority = (authority: string): void => {
    if (authority !== keeper.authority) {
      throw ErrInvalidAuthority.wrap(`invalid authority; expected ${keeper.authority}, got ${authority}`);
    }
  };
  return {
    async send(msg, ctx) {
      const from = address(msg.fromAddress, "from");
      const to = address(msg.toAddress, "to");
      const amount = positiveCoins(msg.amount);
      await keeper.assertSendEnabled(ctx, amount);
      if (keeper.isBlockedAddress(to)) throw ErrUnauthorized.wrap(`${msg.toAddress} is not allowed to receive funds`);
      await keeper.sendCoins(ctx, from, to, amount);
      return {};
    },
    async multiSend(msg, ctx) {
      if (msg.inputs.length === 0) throw ErrNoInputs.error();
      if (msg.inputs.length !== 1) throw ErrMultipleSenders.error();
      if (msg.outputs.length === 0) throw ErrNoOutputs.error();
      const input: InputOutput = {
        address: address(msg.inputs[0].address, "input"),
        coins: positiveCoins(msg.inputs[0].coins),
      };
      const outputs: InputOutput[] = msg.outputs.map((output) => ({
        address: address(output.address, "output"),
        coins: positiveCoins(output.coins),
      }));
      validateInputOutputs(input, outputs);
      await keeper.assertSendEnabled(ctx, input.coins);
      for (let i = 0; i < outputs.length; i++) {
        if (keeper.isBlockedAddress(outputs[i].address)) {
          throw ErrUnauthorized.wrap(`${msg.outputs[i].address} is not allowed to receive funds`);
        }
      }
      await keeper.inputOutputCoins(ctx, input, outputs);
      return {};
    },
    async updateParams(msg, ctx) {
      checkAuthority(msg.authority);
      if (msg.params === undefined) throw ErrInvalidRequest.wrap("params cannot be empty");
      if (msg.params.sendEnabled.length > 0) {
        throw ErrInvalidRequest.wrap("use of send_enabled in params is no longer supported");
      }
      keeper.setParams(ctx, msg.params);
      return {};
    },
    async setSendEnabled(msg, ctx) {
      checkAuthority(msg.authority);
      const seen = new Set<string>();
      for (const entry of msg.sendEnabled) {
        if (seen.has(entry.denom)) throw ErrDuplicateEntry.wrap(`duplicate denom entries found for "${entry.denom}"`);
        seen.add(entry.denom);
        checkDenom(entry.denom);
      }
      for (const denom of msg.useDefaultFor) {
        if (seen.has(denom)) {
          throw ErrInvalidRequest.wrap(`cannot set and unset the send enabled flag of "${denom}" in one message`);
        }
        checkDenom(denom);
      }
      for (const entry of msg.sendEnabled) keeper.setSendEnabled(ctx, entry.denom, entry.enabled);
      for (const denom of msg.useDefaultFor) keeper.deleteSendEnabled(ctx, denom);
      return {};
    },
  };
}

function address(text: string, which: string): Uint8Array {
  try {
    return accountAddressFromBech32(text);
  } catch (err) {
    throw ErrInvalidAddress.wrap(`invalid ${which} address: ${(err as Error).message}`);
  }
}

function positiveCoins(wire: readonly { denom: string; amount: string }[]): Coin[] {
  let coins: Coin[];
  try {
    coins = coinsFromProto(wire);
  } catch {
    throw ErrInvalidCoins.wrap(wire.map((c) => `${c.amount}${c.denom}`).join(","));
  }
  // Upstream checks IsValid and IsAllPositive; the latter is false for no coins at all, so an empty amount is
  // refused too (the log then reads ": invalid coins", as upstream's).
  if (coins.length === 0 || !isValidCoins(coins)) throw ErrInvalidCoins.wrap(coinsToString(coins));
  return coins;
}

function checkDenom(denom: string): void {
  try {
    validateDenom(denom);
  } catch (err) {
    throw ErrInvalidRequest.wrap((err as Error).message);
  }
}
