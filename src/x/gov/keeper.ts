// The gov keeper: proposals, deposits, votes, the deposit/voting queues, params and constitution,
// and the upstream v0.50 logic on top of them (submit, deposit, vote, cancel). The tally lives in
// tally.ts and the end-of-block processing in end-block.ts.

import { create, type DescMessage, fromBinary, type Message, toBinary } from "@bufbuild/protobuf";
import type { Any, Timestamp } from "@bufbuild/protobuf/wkt";
import {
  addCoins,
  type Coin,
  coinsFromProto,
  coinsToProto,
  coinsToString,
  isAllGTE,
  isZeroCoins,
} from "../../app/coins.ts";
import type { Context } from "../../app/context.ts";
import { formatDecimal, mulDec, parseDecimal, truncateDec } from "../../app/dec.ts";
import { ErrInvalidRequest } from "../../app/errors.ts";
import { decodeSignerAddress, signerAddresses } from "../../app/signers.ts";
import { addDuration, compareTimestamps } from "../../app/time.ts";
import { fromWireBinary } from "../../app/wire-decimals.ts";
import { equalBytes } from "../../bytes/compare.ts";
import { fromUtf8, utf8 } from "../../bytes/text.ts";
import { CoinSchema, type Coin as ProtoCoin } from "../../gen/chain/base/v1beta1/coin_pb.js";
import {
  type Deposit,
  DepositSchema,
  type Params,
  ParamsSchema,
  type Proposal,
  ProposalSchema,
  ProposalStatus,
  TallyResultSchema,
  type Vote,
  VoteSchema,
  type WeightedVoteOption,
} from "../../gen/chain/gov/v1/gov_pb.js";
import { MsgExecLegacyContentSchema } from "../../gen/chain/gov/v1/tx_pb.js";
import {
  ErrInactiveProposal,
  ErrInvalidDepositDenom,
  ErrInvalidProposal,
  ErrInvalidProposalContent,
  ErrInvalidProposer,
  ErrInvalidSigner,
  ErrInvalidVote,
  ErrMetadataTooLong,
  ErrMinDepositTooSmall,
  ErrNoProposalHandlerExists,
  ErrSummaryTooLong,
  ErrUnroutableProposalMsg,
  ErrVotingPeriodEnded,
} from "./errors.ts";
import {
  ACTIVE_QUEUE_PREFIX,
  CONSTITUTION_KEY,
  DEPOSITS_PREFIX,
  depositKey,
  depositsOfProposalPrefix,
  GOV_MODULE_NAME,
  GOV_STORE_KEY,
  INACTIVE_QUEUE_PREFIX,
  idBytes,
  PARAMS_KEY,
  PROPOSAL_ID_KEY,
  PROPOSALS_PREFIX,
  proposalKey,
  queueKey,
  readId,
  readTime,
  VOTES_PREFIX,
  voteKey,
  votesOfProposalPrefix,
  votingPeriodKey,
} from "./keys.ts";
import { DEFAULT_GOV_CONFIG, defaultGovParams, type GovConfig, minDepositOf } from "./params.ts";
import { isValidWeightedOption, weightedOptionText } from "./vote-options.ts";

/** What gov needs from the bank. Addresses are raw 20-byte account addresses. */
export interface GovBankKeeper {
  getAllBalances(ctx: Context, address: Uint8Array): Promise<Coin[]>;
  sendCoinsFromAccountToModule(ctx: Context, from: Uint8Array, moduleName: string, amount: Coin[]): Promise<void>;
  sendCoinsFromModuleToAccount(ctx: Context, moduleName: string, to: Uint8Array, amount: Coin[]): Promise<void>;
  burnCoins(ctx: Context, moduleName: string, amount: Coin[]): Promise<void>;
}

/** What gov needs from auth: its module account and the account address codec. */
export interface GovAccountKeeper {
  getModuleAddress(moduleName: string): Uint8Array;
  /** Returns the module account, creating it on first use. */
  getModuleAccount(ctx: Context, moduleName: string): Promise<unknown>;
  addressToString(address: Uint8Array): string;
  /** Throws sdk 7 for a malformed address. */
  addressFromString(address: string): Uint8Array;
}

/** What gov needs from staking: bonded voting power (the tally's inputs). */
export interface GovStakingKeeper {
  /** Tokens in the bonded pool. */
  totalBondedTokens(ctx: Context): Promise<bigint>;
  /** Bonded validators, highest power first: operator bytes, bonded tokens, delegator shares (10^18-scaled). */
  iterateBondedValidatorsByPower(
    ctx: Context,
  ): AsyncIterable<{ operator: Uint8Array; bondedTokens: bigint; delegatorShares: bigint }>;
  /** The delegations of `delegator`: validator operator bytes and shares (10^18-scaled). */
  iterateDelegations(ctx: Context, delegator: Uint8Array): AsyncIterable<{ validator: Uint8Array; shares: bigint }>;
}

/** A routable Msg as gov sees it (a subset of the app's MsgRoute). */
export interface GovMsgRoute {
  input: DescMessage;
  handler: (msg: Message, ctx: Context) => Promise<Message>;
}

/** Finds the handler of a Msg type URL (the app's MsgRouter satisfies this). */
export interface GovMsgRouter {
  route(typeUrl: string): GovMsgRoute | undefined;
}

/** Options of the gov keeper. */
export interface GovKeeperOptions {
  accountKeeper: GovAccountKeeper;
  bankKeeper: GovBankKeeper;
  stakingKeeper: GovStakingKeeper;
  /** The app's Msg router; may also be set later with setMsgRouter (the App is built after its modules). */
  msgRouter?: GovMsgRouter;
  /** Who may update gov params (bech32); default the gov module account. */
  authority?: string;
  config?: Partial<GovConfig>;
}

/** Thrown when the gov keeper is used before it has the app's Msg router. */
export class GovWiringError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "GovWiringError";
  }
}

/** Proposals, deposits, votes, params. */
export class GovKeeper {
  readonly storeKey = GOV_STORE_KEY;
  readonly moduleName = GOV_MODULE_NAME;
  readonly authority: string;
  readonly config: GovConfig;
  readonly accountKeeper: GovAccountKeeper;
  readonly bankKeeper: GovBankKeeper;
  readonly stakingKeeper: GovStakingKeeper;
  private msgRouter: GovMsgRouter | undefined;

  constructor(options: GovKeeperOptions) {
    this.accountKeeper = options.accountKeeper;
    this.bankKeeper = options.bankKeeper;
    this.stakingKeeper = options.stakingKeeper;
    this.msgRouter = options.msgRouter;
    this.authority = options.authority ?? options.accountKeeper.addressToString(this.moduleAddress());
    this.config = { ...DEFAULT_GOV_CONFIG, ...options.config };
  }

  /** Gives the keeper the app's Msg router (call once the App exists). */
  setMsgRouter(router: GovMsgRouter): void {
    this.msgRouter = router;
  }

  /** The Msg router; GovWiringError until set. */
  router(): GovMsgRouter {
    if (this.msgRouter === undefined) {
      throw new GovWiringError("the gov keeper has no Msg router: call govKeeper.setMsgRouter(app.msgRouter)");
    }
    return this.msgRouter;
  }

  /** The gov module account address (the authority of proposal messages). */
  moduleAddress(): Uint8Array {
    return this.accountKeeper.getModuleAddress(GOV_MODULE_NAME);
  }

  // ---- params, constitution, ids --------------------------------------------------------------

  /** The gov params (upstream defaults until set). */
  async getParams(ctx: Context): Promise<Params> {
    const bytes = await ctx.kvStore(this.storeKey).get(PARAMS_KEY);
    return bytes === undefined ? defaultGovParams() : fromBinary(ParamsSchema, bytes);
  }

  /** Stores the params (validate first with validateGovParams). */
  setParams(ctx: Context, params: Params): void {
    ctx.kvStore(this.storeKey).set(PARAMS_KEY, toBinary(ParamsSchema, create(ParamsSchema, params)));
  }

  /** The constitution text. */
  async getConstitution(ctx: Context): Promise<string> {
    const bytes = await ctx.kvStore(this.storeKey).get(CONSTITUTION_KEY);
    return bytes === undefined ? "" : fromUtf8(bytes);
  }

  /** Stores the constitution. */
  setConstitution(ctx: Context, constitution: string): void {
    ctx.kvStore(this.storeKey).set(CONSTITUTION_KEY, utf8(constitution));
  }

  /** The id the next proposal gets (starts at 1). */
  async getNextProposalId(ctx: Context): Promise<bigint> {
    const bytes = await ctx.kvStore(this.storeKey).get(PROPOSAL_ID_KEY);
    return bytes === undefined ? 1n : readId(bytes);
  }

  /** Sets the id the next proposal gets. */
  setNextProposalId(ctx: Context, id: bigint): void {
    ctx.kvStore(this.storeKey).set(PROPOSAL_ID_KEY, idBytes(id));
  }

  // ---- proposals ------------------------------------------------------------------------------

  /** The proposal `id`, if it exists. */
  async getProposal(ctx: Context, id: bigint): Promise<Proposal | undefined> {
    const bytes = await ctx.kvStore(this.storeKey).get(proposalKey(id));
    return bytes === undefined ? undefined : fromBinary(ProposalSchema, bytes);
  }

  /**
   * The proposal `id`; a missing one is upstream's unregistered collections error (codespace
   * `undefined`, code 1).
   */
  async mustGetProposal(ctx: Context, id: bigint): Promise<Proposal> {
    const proposal = await this.getProposal(ctx, id);
    if (proposal === undefined)
      throw new Error(`collections: not found: key '${id}' of type ${ProposalSchema.typeName}`);
    return proposal;
  }

  /** Stores a proposal and keeps the voting-period set in step with its status (upstream SetProposal). */
  setProposal(ctx: Context, proposal: Proposal): void {
    const store = ctx.kvStore(this.storeKey);
    if (proposal.status === ProposalStatus.VOTING_PERIOD) store.set(votingPeriodKey(proposal.id), Uint8Array.of(1));
    else store.delete(votingPeriodKey(proposal.id));
    store.set(proposalKey(proposal.id), toBinary(ProposalSchema, proposal));
  }

  /** Deletes a proposal and its queue entries (upstream DeleteProposal). */
  async deleteProposal(ctx: Context, id: bigint): Promise<void> {
    const proposal = await this.mustGetProposal(ctx, id);
    const store = ctx.kvStore(this.storeKey);
    if (proposal.depositEndTime !== undefined)
      store.delete(queueKey(INACTIVE_QUEUE_PREFIX, proposal.depositEndTime, id));
    if (proposal.votingEndTime !== undefined) {
      store.delete(queueKey(ACTIVE_QUEUE_PREFIX, proposal.votingEndTime, id));
      store.delete(votingPeriodKey(id));
    }
    store.delete(proposalKey(id));
  }

  /** Every proposal, by id. */
  async *iterateProposals(ctx: Context): AsyncIterable<Proposal> {
    for await (const [, value] of ctx.kvStore(this.storeKey).iterate({ prefix: PROPOSALS_PREFIX })) {
      yield fromBinary(ProposalSchema, value);
    }
  }

  /** True when the proposal is in its voting period (upstream VotingPeriodProposals.Has). */
  async isInVotingPeriod(ctx: Context, id: bigint): Promise<boolean> {
    return ctx.kvStore(this.storeKey).has(votingPeriodKey(id));
  }

  /** Adds the proposal to the inactive (deposit) queue. */
  insertInactiveQueue(ctx: Context, id: bigint, depositEndTime: Timestamp): void {
    ctx.kvStore(this.storeKey).set(queueKey(INACTIVE_QUEUE_PREFIX, depositEndTime, id), idBytes(id));
  }

  /** Adds the proposal to the active (voting) queue. */
  insertActiveQueue(ctx: Context, id: bigint, votingEndTime: Timestamp): void {
    ctx.kvStore(this.storeKey).set(queueKey(ACTIVE_QUEUE_PREFIX, votingEndTime, id), idBytes(id));
  }

  /** Removes the proposal from the active queue. */
  removeActiveQueue(ctx: Context, id: bigint, votingEndTime: Timestamp): void {
    ctx.kvStore(this.storeKey).delete(queueKey(ACTIVE_QUEUE_PREFIX, votingEndTime, id));
  }

  /** Ids queued (active or inactive queue prefix) with a time ≤ `until`, in queue order. */
  async queuedUntil(ctx: Context, prefix: Uint8Array, until: Timestamp): Promise<bigint[]> {
    const ids: bigint[] = [];
    for await (const [key] of ctx.kvStore(this.storeKey).iterate({ prefix })) {
      if (compareTimestamps(readTime(key, prefix.length), until) > 0) break;
      ids.push(readId(key, prefix.length + 12));
    }
    return ids;
  }

  // ---- deposits -------------------------------------------------------------------------------

  /** The deposit of `depositor` on proposal `id`, if any. */
  async getDeposit(ctx: Context, id: bigint, depositor: Uint8Array): Promise<Deposit | undefined> {
    const bytes = await ctx.kvStore(this.storeKey).get(depositKey(id, depositor));
    return bytes === undefined ? undefined : fromBinary(DepositSchema, bytes);
  }

  /** Stores a deposit. */
  setDeposit(ctx: Context, deposit: Deposit): void {
    const depositor = this.accountKeeper.addressFromString(deposit.depositor);
    ctx.kvStore(this.storeKey).set(depositKey(deposit.proposalId, depositor), toBinary(DepositSchema, deposit));
  }

  /** The deposits on proposal `id`, by depositor address. */
  async getDeposits(ctx: Context, id: bigint): Promise<{ depositor: Uint8Array; deposit: Deposit }[]> {
    const prefix = depositsOfProposalPrefix(id);
    const out: { depositor: Uint8Array; deposit: Deposit }[] = [];
    for await (const [key, value] of ctx.kvStore(this.storeKey).iterate({ prefix })) {
      out.push({ depositor: key.slice(prefix.length), deposit: fromBinary(DepositSchema, value) });
    }
    return out;
  }

  /** Every deposit of every proposal. */
  async *iterateAllDeposits(ctx: Context): AsyncIterable<Deposit> {
    for await (const [, value] of ctx.kvStore(this.storeKey).iterate({ prefix: DEPOSITS_PREFIX })) {
      yield fromBinary(DepositSchema, value);
    }
  }

  /** Refunds every deposit of proposal `id` to its depositor and deletes it. */
  async refundAndDeleteDeposits(ctx: Context, id: bigint): Promise<void> {
    const store = ctx.kvStore(this.storeKey);
    for (const { depositor, deposit } of await this.getDeposits(ctx, id)) {
      await this.bankKeeper.sendCoinsFromModuleToAccount(
        ctx,
        GOV_MODULE_NAME,
        depositor,
        coinsFromProto(deposit.amount),
      );
      store.delete(depositKey(id, depositor));
    }
  }

  /** Burns every deposit of proposal `id` (supply decreases) and deletes them. */
  async deleteAndBurnDeposits(ctx: Context, id: bigint): Promise<void> {
    const store = ctx.kvStore(this.storeKey);
    let total: Coin[] = [];
    for (const { depositor, deposit } of await this.getDeposits(ctx, id)) {
      total = addCoins(total, coinsFromProto(deposit.amount));
      store.delete(depositKey(id, depositor));
    }
    if (total.length > 0) await this.bankKeeper.burnCoins(ctx, GOV_MODULE_NAME, total);
  }

  // ---- votes ----------------------------------------------------------------------------------

  /** The vote of `voter` on proposal `id`, if any. */
  async getVote(ctx: Context, id: bigint, voter: Uint8Array): Promise<Vote | undefined> {
    const bytes = await ctx.kvStore(this.storeKey).get(voteKey(id, voter));
    return bytes === undefined ? undefined : fromBinary(VoteSchema, bytes);
  }

  /** Stores a vote (a second vote from the same voter overwrites the first). */
  setVote(ctx: Context, vote: Vote): void {
    const voter = this.accountKeeper.addressFromString(vote.voter);
    ctx.kvStore(this.storeKey).set(voteKey(vote.proposalId, voter), toBinary(VoteSchema, vote));
  }

  /** The votes on proposal `id`, by voter address. */
  async getVotes(ctx: Context, id: bigint): Promise<{ voter: Uint8Array; vote: Vote }[]> {
    const prefix = votesOfProposalPrefix(id);
    const out: { voter: Uint8Array; vote: Vote }[] = [];
    for await (const [key, value] of ctx.kvStore(this.storeKey).iterate({ prefix })) {
      out.push({ voter: key.slice(prefix.length), vote: fromBinary(VoteSchema, value) });
    }
    return out;
  }

  /** Every vote on every proposal. */
  async *iterateAllVotes(ctx: Context): AsyncIterable<Vote> {
    for await (const [, value] of ctx.kvStore(this.storeKey).iterate({ prefix: VOTES_PREFIX })) {
      yield fromBinary(VoteSchema, value);
    }
  }

  /** Deletes a vote. */
  deleteVote(ctx: Context, id: bigint, voter: Uint8Array): void {
    ctx.kvStore(this.storeKey).delete(voteKey(id, voter));
  }

  // ---- submission -----------------------------------------------------------------------------

  /**
   * Upstream Keeper.SubmitProposal: length checks, then for each message a route, exactly one
   * signer and that signer the gov account; stores the proposal in DEPOSIT_PERIOD with the
   * inactive-queue entry; emits submit_proposal. Messages are not executed here.
   */
  async submitProposal(
    ctx: Context,
    messages: readonly Any[],
    metadata: string,
    title: string,
    summary: string,
    proposer: Uint8Array,
    expedited: boolean,
  ): Promise<Proposal> {
    this.assertMetadataLength(metadata);
    this.assertSummaryLength(summary);
    this.assertMetadataLength(title);

    let typeUrls = "";
    const govAddress = this.moduleAddress();
    for (const any of messages) {
      typeUrls += `,${any.typeUrl}`;
      const route = this.router().route(any.typeUrl);
      if (route === undefined) throw ErrUnroutableProposalMsg.wrap(any.typeUrl);
      const msg = decodeProposalMessage(route, any);
      const signers = signerAddresses(route.input, msg).map((address) =>
        decodeSignerAddress(address, route.input.typeName),
      );
      if (signers.length !== 1) throw ErrInvalidSigner.error();
      if (!equalBytes(signers[0], govAddress)) {
        throw ErrInvalidSigner.wrap(this.accountKeeper.addressToString(signers[0]));
      }
      // Legacy content is dry-run in a throwaway branch, as upstream does; other messages run only
      // once the proposal passes.
      if (route.input.typeName === MsgExecLegacyContentSchema.typeName) {
        const { ctx: dryRun } = ctx.branch();
        try {
          await route.handler(msg, dryRun);
        } catch (err) {
          if (ErrNoProposalHandlerExists.is(err)) throw err;
          throw ErrInvalidProposalContent.wrap((err as Error).message, { cause: err });
        }
      }
    }

    const id = await this.getNextProposalId(ctx);
    this.setNextProposalId(ctx, id + 1n);
    const params = await this.getParams(ctx);
    const submitTime = ctx.blockTime;
    const proposal = create(ProposalSchema, {
      id,
      messages: [...messages],
      status: ProposalStatus.DEPOSIT_PERIOD,
      finalTallyResult: emptyTallyResult(),
      submitTime,
      depositEndTime: addDuration(submitTime, params.maxDepositPeriod),
      totalDeposit: [],
      metadata,
      title,
      summary,
      proposer: this.accountKeeper.addressToString(proposer),
      expedited,
      failedReason: "",
    });
    this.setProposal(ctx, proposal);
    this.insertInactiveQueue(ctx, id, proposal.depositEndTime!);
    ctx.events.emit("submit_proposal", {
      proposal_id: id.toString(),
      proposal_proposer: this.accountKeeper.addressToString(proposer),
      proposal_messages: typeUrls,
    });
    return proposal;
  }

  // ---- deposits -------------------------------------------------------------------------------

  /**
   * Upstream AddDeposit: the proposal must be in its deposit or voting period, the denoms accepted,
   * the min_deposit_ratio met; moves the coins to the gov account, adds to the total, starts the
   * voting period when the minimum is reached. Returns whether voting started.
   */
  async addDeposit(ctx: Context, id: bigint, depositor: Uint8Array, amount: Coin[]): Promise<boolean> {
    let proposal = await this.mustGetProposal(ctx, id);
    if (proposal.status !== ProposalStatus.DEPOSIT_PERIOD && proposal.status !== ProposalStatus.VOTING_PERIOD) {
      throw ErrInactiveProposal.wrap(id.toString());
    }
    const params = await this.getParams(ctx);
    const minDeposit = minDepositOf(params, proposal.expedited);
    validateDepositDenom(params, amount);

    const ratio = parseDecimal(params.minDepositRatio);
    if (ratio !== 0n) {
      const thresholds: string[] = [];
      let met = false;
      for (const min of minDeposit) {
        const threshold = truncateDec(mulDec(min.amount * 10n ** 18n, ratio));
        thresholds.push(`${threshold}${min.denom}`);
        const deposited = amount.find((coin) => coin.denom === min.denom);
        if (deposited === undefined) continue;
        if (deposited.amount >= threshold) {
          met = true;
          break;
        }
      }
      if (!met) {
        throw ErrMinDepositTooSmall.wrap(
          `received ${coinsToString(amount)} but need at least one of the following: ${thresholds.join(",")}`,
        );
      }
    }

    await this.bankKeeper.sendCoinsFromAccountToModule(ctx, depositor, GOV_MODULE_NAME, amount);

    proposal = create(ProposalSchema, {
      ...proposal,
      totalDeposit: coinMessages(addCoins(coinsFromProto(proposal.totalDeposit), amount)),
    });
    this.setProposal(ctx, proposal);

    let activated = false;
    if (
      proposal.status === ProposalStatus.DEPOSIT_PERIOD &&
      isAllGTE(coinsFromProto(proposal.totalDeposit), minDeposit)
    ) {
      await this.activateVotingPeriod(ctx, proposal);
      activated = true;
    }

    const existing = await this.getDeposit(ctx, id, depositor);
    const deposit = create(DepositSchema, {
      proposalId: id,
      depositor: this.accountKeeper.addressToString(depositor),
      amount: coinsToProto(existing === undefined ? amount : addCoins(coinsFromProto(existing.amount), amount)),
    });
    ctx.events.emit("proposal_deposit", {
      depositor: this.accountKeeper.addressToString(depositor),
      amount: coinsToString(amount),
      proposal_id: id.toString(),
    });
    this.setDeposit(ctx, deposit);
    return activated;
  }

  /** Moves a proposal into its voting period (upstream ActivateVotingPeriod). */
  async activateVotingPeriod(ctx: Context, proposal: Proposal): Promise<void> {
    const params = await this.getParams(ctx);
    const start = ctx.blockTime;
    const end = addDuration(start, proposal.expedited ? params.expeditedVotingPeriod : params.votingPeriod);
    const active = create(ProposalSchema, {
      ...proposal,
      votingStartTime: start,
      votingEndTime: end,
      status: ProposalStatus.VOTING_PERIOD,
    });
    this.setProposal(ctx, active);
    ctx.kvStore(this.storeKey).delete(queueKey(INACTIVE_QUEUE_PREFIX, proposal.depositEndTime!, proposal.id));
    this.insertActiveQueue(ctx, proposal.id, end);
  }

  // ---- votes ----------------------------------------------------------------------------------

  /** Upstream AddVote: voting period only (`<id>: inactive proposal` otherwise); re-voting overwrites. */
  async addVote(
    ctx: Context,
    id: bigint,
    voter: Uint8Array,
    options: readonly WeightedVoteOption[],
    metadata: string,
  ): Promise<void> {
    if (!(await this.isInVotingPeriod(ctx, id))) throw ErrInactiveProposal.wrap(id.toString());
    this.assertMetadataLength(metadata);
    for (const option of options) {
      if (!isValidWeightedOption(option)) throw ErrInvalidVote.wrap(weightedOptionText(option));
    }
    const voterText = this.accountKeeper.addressToString(voter);
    this.setVote(ctx, create(VoteSchema, { proposalId: id, voter: voterText, options: [...options], metadata }));
    ctx.events.emit("proposal_vote", {
      voter: voterText,
      option: options
        .map((option) => weightedOptionText(option))
        .join("\n")
        .trim(),
      proposal_id: id.toString(),
    });
  }

  // ---- cancellation ---------------------------------------------------------------------------

  /**
   * Upstream CancelProposal: only the proposer, only before voting ends; charges
   * proposal_cancel_ratio of every deposit (burned, or sent to proposal_cancel_dest), refunds the
   * rest, deletes votes and the proposal.
   */
  async cancelProposal(ctx: Context, id: bigint, proposer: string): Promise<void> {
    const proposal = await this.mustGetProposal(ctx, id);
    if (proposal.proposer === "") {
      throw ErrInvalidProposal.wrap(`proposal ${id} doesn't have proposer ${proposer}, so cannot be canceled`);
    }
    if (proposal.proposer !== proposer) throw ErrInvalidProposer.wrap(`invalid proposer ${proposer}`);
    if (proposal.status !== ProposalStatus.DEPOSIT_PERIOD && proposal.status !== ProposalStatus.VOTING_PERIOD) {
      throw ErrInvalidProposal.wrap("proposal should be in the deposit or voting period");
    }
    if (proposal.votingEndTime !== undefined && compareTimestamps(proposal.votingEndTime, ctx.blockTime) < 0) {
      throw ErrVotingPeriodEnded.wrap(`voting period is already ended for this proposal ${id}`);
    }
    const params = await this.getParams(ctx);
    await this.chargeDeposit(ctx, id, params.proposalCancelDest, parseDecimal(params.proposalCancelRatio));
    if (proposal.votingStartTime !== undefined) {
      for (const { voter } of await this.getVotes(ctx, id)) this.deleteVote(ctx, id, voter);
    }
    await this.deleteProposal(ctx, id);
  }

  private async chargeDeposit(ctx: Context, id: bigint, destination: string, rate: bigint): Promise<void> {
    const store = ctx.kvStore(this.storeKey);
    let charges: Coin[] = [];
    for (const { depositor, deposit } of await this.getDeposits(ctx, id)) {
      const remaining: Coin[] = [];
      for (const coin of coinsFromProto(deposit.amount)) {
        const burn = truncateDec(mulDec(coin.amount * 10n ** 18n, rate));
        remaining.push({ denom: coin.denom, amount: coin.amount - burn });
        charges = addCoins(charges, [{ denom: coin.denom, amount: burn }]);
      }
      const refund = remaining.filter((coin) => coin.amount > 0n);
      if (!isZeroCoins(refund)) {
        await this.bankKeeper.sendCoinsFromModuleToAccount(ctx, GOV_MODULE_NAME, depositor, refund);
      }
      store.delete(depositKey(id, depositor));
    }
    if (isZeroCoins(charges)) return;
    if (destination === "") {
      await this.bankKeeper.burnCoins(ctx, GOV_MODULE_NAME, charges);
    } else {
      await this.bankKeeper.sendCoinsFromModuleToAccount(
        ctx,
        GOV_MODULE_NAME,
        this.accountKeeper.addressFromString(destination),
        charges,
      );
    }
  }

  // ---- helpers --------------------------------------------------------------------------------

  /** `got metadata with length <n>: metadata too long` (gov 15) beyond max_metadata_len bytes. */
  assertMetadataLength(metadata: string): void {
    const length = Buffer.byteLength(metadata, "utf8");
    if (length > this.config.maxMetadataLen) throw ErrMetadataTooLong.wrap(`got metadata with length ${length}`);
  }

  /** `got summary with length <n>: summary too long` (gov 22) beyond max_summary_len bytes. */
  assertSummaryLength(summary: string): void {
    const length = Buffer.byteLength(summary, "utf8");
    if (length > this.config.maxSummaryLen) throw ErrSummaryTooLong.wrap(`got summary with length ${length}`);
  }
}

/** Coins as generated Coin messages (for fields of messages built by spreading another message). */
export function coinMessages(coins: readonly Coin[]): ProtoCoin[] {
  return coinsToProto(coins).map((coin) => create(CoinSchema, coin));
}

/** All-zero tally counts. */
export function emptyTallyResult() {
  return create(TallyResultSchema, { yesCount: "0", abstainCount: "0", noCount: "0", noWithVetoCount: "0" });
}

/** Every deposited denom must be one of min_deposit's (gov 23). */
export function validateDepositDenom(params: Params, amount: readonly Coin[]): void {
  const accepted = params.minDeposit.map((coin) => coin.denom);
  for (const coin of amount) {
    if (!accepted.includes(coin.denom)) {
      throw ErrInvalidDepositDenom.wrap(
        `deposited ${coinsToString(amount)}, but gov accepts only the following denom(s): [${accepted.join(" ")}]`,
      );
    }
  }
}

/** Decodes a proposal message for its route; undecodable bytes → sdk 18. */
export function decodeProposalMessage(route: GovMsgRoute, any: Any): Message {
  try {
    return fromWireBinary(route.input, any.value);
  } catch (err) {
    throw ErrInvalidRequest.wrap(`cannot decode proposal message ${any.typeUrl}: ${(err as Error).message}`, {
      cause: err,
    });
  }
}

/** The weight text of 1 (`1.000000000000000000`), as a non-split vote stores it. */
export const FULL_WEIGHT = formatDecimal(10n ** 18n);
