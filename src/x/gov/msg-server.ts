// The gov Msg service (upstream x/gov/keeper/msg_server.go, v0.50): the checks each message makes
// before the keeper does the work, with upstream's codes and texts.
import { create, toBinary } from "@bufbuild/protobuf";
import { type Coin, CoinError, coinsFromProto, coinsToString, isValidCoins } from "../../app/coins.ts";
import type { Context } from "../../app/context.ts";
import { DEC_ONE, parseDecimal } from "../../app/dec.ts";
import { ErrInvalidAddress, ErrInvalidCoins, ErrInvalidRequest } from "../../app/errors.ts";
import type { ServiceHandlers } from "../../app/module.ts";
import { ProposalSchema, WeightedVoteOptionSchema } from "../../gen/chain/gov/v1/gov_pb.js";
import type { Msg, MsgSubmitProposal } from "../../gen/chain/gov/v1/tx_pb.js";
import {
  ErrInvalidProposalContent,
  ErrInvalidSigner,
  ErrInvalidVote,
  ErrMinDepositTooSmall,
  ErrNoProposalHandlerExists,
  ErrNoProposalMsgs,
} from "./errors.ts";
import { FULL_WEIGHT, type GovKeeper, validateDepositDenom } from "./keeper.ts";
import { minDepositOf, validateGovParams } from "./params.ts";
import { isValidVoteOption, isValidWeightedOption, voteOptionName, weightedOptionText } from "./vote-options.ts";

/** The Msg service handlers of gov. */
export function govMsgServer(keeper: GovKeeper): ServiceHandlers<typeof Msg> {
  return {
    submitProposal: async (msg, ctx) => ({ proposalId: await submitProposal(keeper, msg, ctx) }),

    execLegacyContent: async (msg) => {
      if (msg.authority !== keeper.authority) {
        throw ErrInvalidSigner.wrap(`expected ${keeper.authority} got ${msg.authority}`);
      }
      // This chain registers no legacy proposal routes (upstream's v1beta1 content handlers).
      throw ErrNoProposalHandlerExists.wrap(msg.content?.typeUrl ?? "");
    },

    vote: async (msg, ctx) => {
      const voter = accountAddress(keeper, msg.voter, "voter");
      if (!isValidVoteOption(msg.option)) throw ErrInvalidVote.wrap(voteOptionName(msg.option));
      const option = create(WeightedVoteOptionSchema, { option: msg.option, weight: FULL_WEIGHT });
      await keeper.addVote(ctx, msg.proposalId, voter, [option], msg.metadata);
      return {};
    },

    voteWeighted: async (msg, ctx) => {
      const voter = accountAddress(keeper, msg.voter, "voter");
      if (msg.options.length === 0) {
        throw ErrInvalidRequest.wrap(
          msg.options
            .map((o) => weightedOptionText(o))
            .join("\n")
            .trim(),
        );
      }
      let total = 0n;
      const used = new Set<number>();
      for (const option of msg.options) {
        if (!isValidWeightedOption(option)) throw ErrInvalidVote.wrap(weightedOptionText(option));
        total += parseDecimal(option.weight);
        if (used.has(option.option)) throw ErrInvalidVote.wrap("duplicated vote option");
        used.add(option.option);
      }
      if (total > DEC_ONE) throw ErrInvalidVote.wrap("total weight overflow 1.00");
      if (total < DEC_ONE) throw ErrInvalidVote.wrap("total weight lower than 1.00");
      await keeper.addVote(ctx, msg.proposalId, voter, msg.options, msg.metadata);
      return {};
    },

    deposit: async (msg, ctx) => {
      const depositor = accountAddress(keeper, msg.depositor, "depositor");
      const amount = parseDepositCoins(msg.amount);
      if (amount === undefined || amount.length === 0 || !isValidCoins(amount)) {
        throw ErrInvalidCoins.wrap(protoCoinsText(msg.amount));
      }
      const started = await keeper.addDeposit(ctx, msg.proposalId, depositor, amount);
      if (started) ctx.events.emit("proposal_deposit", { voting_period_start: msg.proposalId.toString() });
      return {};
    },

    updateParams: async (msg, ctx) => {
      if (msg.authority !== keeper.authority) {
        throw ErrInvalidSigner.wrap(`invalid authority; expected ${keeper.authority}, got ${msg.authority}`);
      }
      if (msg.params === undefined) throw ErrInvalidRequest.wrap("params cannot be empty");
      validateGovParams(msg.params);
      keeper.setParams(ctx, msg.params);
      return {};
    },

    cancelProposal: async (msg, ctx) => {
      accountAddress(keeper, msg.proposer, "proposer");
      await keeper.cancelProposal(ctx, msg.proposalId, msg.proposer);
      ctx.events.emit("cancel_proposal", { sender: msg.proposer, proposal_id: msg.proposalId.toString() });
      return { proposalId: msg.proposalId, canceledTime: ctx.blockTime, canceledHeight: ctx.blockHeight };
    },
  };
}

/** MsgSubmitProposal as upstream v0.50's msg server, then Keeper.SubmitProposal and AddDeposit. */
async function submitProposal(keeper: GovKeeper, msg: MsgSubmitProposal, ctx: Context): Promise<bigint> {
  if (msg.title === "") throw ErrInvalidRequest.wrap("proposal title cannot be empty");
  if (msg.summary === "") throw ErrInvalidRequest.wrap("proposal summary cannot be empty");
  const proposer = accountAddress(keeper, msg.proposer, "proposer");
  if (msg.messages.length === 0 && msg.metadata.length === 0) {
    throw ErrNoProposalMsgs.wrap("either metadata or Msgs length must be non-nil");
  }
  checkMetadataMatches(msg);

  const params = await keeper.getParams(ctx);
  const initialDeposit = parseDepositCoins(msg.initialDeposit);
  if (initialDeposit === undefined) throw ErrInvalidCoins.wrap(protoCoinsText(msg.initialDeposit));
  validateInitialDeposit(params, initialDeposit, msg.expedited);
  validateDepositDenom(params, initialDeposit);

  const proposal = await keeper.submitProposal(
    ctx,
    msg.messages,
    msg.metadata,
    msg.title,
    msg.summary,
    proposer,
    msg.expedited,
  );
  // Upstream charges for the proposal's size on top of the store writes (cosmos-sdk#9683).
  const size = BigInt(toBinary(ProposalSchema, proposal).length);
  ctx.gasMeter.consume(3n * ctx.kvGasConfig.writeCostPerByte * size, "submit proposal");

  const started = await keeper.addDeposit(ctx, proposal.id, proposer, initialDeposit);
  if (started) ctx.events.emit("submit_proposal", { voting_period_start: proposal.id.toString() });
  return proposal.id;
}

/**
 * When the metadata is upstream's JSON shape, its title and summary must equal the message's
 * (gov 5). Anything that does not decode into that shape is accepted as free-form metadata, as Go's
 * json.Unmarshal failing is ignored upstream.
 */
function checkMetadataMatches(msg: MsgSubmitProposal): void {
  if (msg.metadata.length === 0) return;
  const fields = decodeProposalMetadata(msg.metadata);
  if (fields === undefined) return;
  if (fields.title !== msg.title) {
    throw ErrInvalidProposalContent.wrap(`metadata title '${fields.title}' must equal proposal title '${msg.title}'`);
  }
  if (fields.summary !== msg.summary) {
    throw ErrInvalidProposalContent.wrap(
      `metadata summary '${fields.summary}' must equal proposal summary '${msg.summary}'`,
    );
  }
}

const METADATA_STRING_FIELDS = ["title", "summary", "details", "proposal_forum_url", "vote_option_context"];

// Go decodes into ProposalMetadata{title, authors, summary, details, proposal_forum_url,
// vote_option_context} with case-insensitive keys; `null` decodes to the zero value; a wrong type
// anywhere is an error (and then upstream ignores the metadata).
function decodeProposalMetadata(text: string): { title: string; summary: string } | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (value === null) return { title: "", summary: "" };
  if (typeof value !== "object" || Array.isArray(value)) return undefined;
  const out: Record<string, string> = {};
  for (const [key, field] of Object.entries(value as Record<string, unknown>)) {
    const name = key.toLowerCase();
    if (METADATA_STRING_FIELDS.includes(name)) {
      if (field !== null && typeof field !== "string") return undefined;
      out[name] = field ?? "";
    } else if (name === "authors") {
      if (field !== null && !(Array.isArray(field) && field.every((a) => typeof a === "string"))) return undefined;
    }
  }
  return { title: out.title ?? "", summary: out.summary ?? "" };
}

/** Upstream validateInitialDeposit: valid coins, and min_initial_deposit_ratio of the minimum. */
function validateInitialDeposit(
  params: Parameters<typeof minDepositOf>[0],
  initialDeposit: Coin[],
  expedited: boolean,
): void {
  if (!isValidCoins(initialDeposit)) throw ErrInvalidCoins.wrap(coinsToString(initialDeposit));
  const ratio = parseDecimal(params.minInitialDepositRatio);
  if (ratio === 0n) return;
  const required = minDepositOf(params, expedited).map((coin) => ({
    denom: coin.denom,
    amount: roundHalfEven(coin.amount * ratio),
  }));
  const enough = required.every(
    (need) => (initialDeposit.find((coin) => coin.denom === need.denom)?.amount ?? 0n) >= need.amount,
  );
  if (!enough) {
    throw ErrMinDepositTooSmall.wrap(`was (${coinsToString(initialDeposit)}), need (${coinsToString(required)})`);
  }
}

// LegacyDec.RoundInt of (amount × ratio), where amount × ratio is already 10^18-scaled.
function roundHalfEven(scaled: bigint): bigint {
  const quotient = scaled / DEC_ONE;
  const remainder = scaled % DEC_ONE;
  const half = DEC_ONE / 2n;
  if (remainder < half) return quotient;
  if (remainder > half) return quotient + 1n;
  return quotient % 2n === 0n ? quotient : quotient + 1n;
}

function accountAddress(keeper: GovKeeper, address: string, role: string): Uint8Array {
  try {
    return keeper.accountKeeper.addressFromString(address);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const inner = message.endsWith(": invalid address") ? message.slice(0, -": invalid address".length) : message;
    throw ErrInvalidAddress.wrap(`invalid ${role} address: ${inner}`, { cause: err });
  }
}

// Proto coins as given (order kept); undefined when an amount is not an integer. Validity (sorted,
// positive, good denoms) is checked by the callers with upstream's messages.
function parseDepositCoins(coins: readonly { denom: string; amount: string }[]): Coin[] | undefined {
  try {
    return coinsFromProto(coins);
  } catch (err) {
    if (err instanceof CoinError) return undefined;
    throw err;
  }
}

function protoCoinsText(coins: readonly { denom: string; amount: string }[]): string {
  return coins.map((coin) => `${coin.amount}${coin.denom}`).join(",");
}
