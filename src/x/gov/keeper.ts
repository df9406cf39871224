// The gov keeper: the module's handle on its store and on the keepers it uses, and the one object its
// callers (Msg and Query servers, EndBlocker, tally, genesis, other modules, the testing kit) hold. Each
// method delegates to the file of its concern, as upstream splits x/gov/keeper: params-store.ts (params,
// constitution, next id), proposals.ts (the proposal store, submit, activate, cancel), queues.ts (the
// deposit and voting queues), deposits.ts and votes.ts. The tally lives in tally.ts and the
// end-of-block processing in end-block.ts. The functions call back through the keeper's methods, so
// every store read and write happens in the order it always has (gas counts them).

import type { Any, Timestamp } from "@bufbuild/protobuf/wkt";
import type { Coin } from "../../app/coins.ts";
import type { Context } from "../../app/context.ts";
import type { Deposit, Params, Proposal, Vote, WeightedVoteOption } from "../../gen/chain/gov/v1/gov_pb.js";
import * as deposits from "./deposits.ts";
import { ErrMetadataTooLong, ErrSummaryTooLong } from "./errors.ts";
import type { GovAccountKeeper, GovBankKeeper, GovMsgRouter, GovStakingKeeper } from "./expected-keepers.ts";
import { GOV_MODULE_NAME, GOV_STORE_KEY } from "./keys.ts";
import { DEFAULT_GOV_CONFIG, type GovConfig } from "./params.ts";
import * as paramsStore from "./params-store.ts";
import * as proposals from "./proposals.ts";
import * as queues from "./queues.ts";
import * as votes from "./votes.ts";

export { coinMessages, validateDepositDenom } from "./deposits.ts";
export type {
  GovAccountKeeper,
  GovBankKeeper,
  GovMsgRoute,
  GovMsgRouter,
  GovStakingKeeper,
} from "./expected-keepers.ts";
export { decodeProposalMessage, emptyTallyResult } from "./proposals.ts";
export { FULL_WEIGHT } from "./votes.ts";

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

  // ---- params, constitution, ids (params-store.ts) --------------------------------------------

  /** The gov params (upstream defaults until set). */
  getParams(ctx: Context): Promise<Params> {
    return paramsStore.getParams(ctx, this);
  }

  /** Stores the params (validate first with validateGovParams). */
  setParams(ctx: Context, params: Params): void {
    paramsStore.setParams(ctx, this, params);
  }

  /** The constitution text. */
  getConstitution(ctx: Context): Promise<string> {
    return paramsStore.getConstitution(ctx, this);
  }

  /** Stores the constitution. */
  setConstitution(ctx: Context, constitution: string): void {
    paramsStore.setConstitution(ctx, this, constitution);
  }

  /** The id the next proposal gets (starts at 1). */
  getNextProposalId(ctx: Context): Promise<bigint> {
    return paramsStore.getNextProposalId(ctx, this);
  }

  /** Sets the id the next proposal gets. */
  setNextProposalId(ctx: Context, id: bigint): void {
    paramsStore.setNextProposalId(ctx, this, id);
  }

  // ---- proposals (proposals.ts) ---------------------------------------------------------------

  /** The proposal `id`, if it exists. */
  getProposal(ctx: Context, id: bigint): Promise<Proposal | undefined> {
    return proposals.getProposal(ctx, this, id);
  }

  /** The proposal `id`; a missing one is upstream's unregistered collections error (codespace `undefined`, code 1). */
  mustGetProposal(ctx: Context, id: bigint): Promise<Proposal> {
    return proposals.mustGetProposal(ctx, this, id);
  }

  /** Stores a proposal and keeps the voting-period set in step with its status (upstream SetProposal). */
  setProposal(ctx: Context, proposal: Proposal): void {
    proposals.setProposal(ctx, this, proposal);
  }

  /** Deletes a proposal and its queue entries (upstream DeleteProposal). */
  deleteProposal(ctx: Context, id: bigint): Promise<void> {
    return proposals.deleteProposal(ctx, this, id);
  }

  /** Every proposal, by id. */
  iterateProposals(ctx: Context): AsyncIterable<Proposal> {
    return proposals.iterateProposals(ctx, this);
  }

  /** True when the proposal is in its voting period (upstream VotingPeriodProposals.Has). */
  isInVotingPeriod(ctx: Context, id: bigint): Promise<boolean> {
    return proposals.isInVotingPeriod(ctx, this, id);
  }

  /**
   * Upstream Keeper.SubmitProposal: length checks, then for each message a route, exactly one
   * signer and that signer the gov account; stores the proposal in DEPOSIT_PERIOD with the
   * inactive-queue entry; emits submit_proposal. Messages are not executed here.
   */
  submitProposal(
    ctx: Context,
    messages: readonly Any[],
    metadata: string,
    title: string,
    summary: string,
    proposer: Uint8Array,
    expedited: boolean,
  ): Promise<Proposal> {
    return proposals.submitProposal(ctx, this, messages, metadata, title, summary, proposer, expedited);
  }

  /** Moves a proposal into its voting period (upstream ActivateVotingPeriod). */
  activateVotingPeriod(ctx: Context, proposal: Proposal): Promise<void> {
    return proposals.activateVotingPeriod(ctx, this, proposal);
  }

  /**
   * Upstream CancelProposal: only the proposer, only before voting ends; charges
   * proposal_cancel_ratio of every deposit (burned, or sent to proposal_cancel_dest), refunds the
   * rest, deletes votes and the proposal.
   */
  cancelProposal(ctx: Context, id: bigint, proposer: string): Promise<void> {
    return proposals.cancelProposal(ctx, this, id, proposer);
  }

  // ---- queues (queues.ts) ---------------------------------------------------------------------

  /** Adds the proposal to the inactive (deposit) queue. */
  insertInactiveQueue(ctx: Context, id: bigint, depositEndTime: Timestamp): void {
    queues.insertInactiveQueue(ctx, this, id, depositEndTime);
  }

  /** Adds the proposal to the active (voting) queue. */
  insertActiveQueue(ctx: Context, id: bigint, votingEndTime: Timestamp): void {
    queues.insertActiveQueue(ctx, this, id, votingEndTime);
  }

  /** Removes the proposal from the active queue. */
  removeActiveQueue(ctx: Context, id: bigint, votingEndTime: Timestamp): void {
    queues.removeActiveQueue(ctx, this, id, votingEndTime);
  }

  /** Ids queued (active or inactive queue prefix) with a time ≤ `until`, in queue order. */
  queuedUntil(ctx: Context, prefix: Uint8Array, until: Timestamp): Promise<bigint[]> {
    return queues.queuedUntil(ctx, this, prefix, until);
  }

  // ---- deposits (deposits.ts) -----------------------------------------------------------------

  /** The deposit of `depositor` on proposal `id`, if any. */
  getDeposit(ctx: Context, id: bigint, depositor: Uint8Array): Promise<Deposit | undefined> {
    return deposits.getDeposit(ctx, this, id, depositor);
  }

  /** Stores a deposit. */
  setDeposit(ctx: Context, deposit: Deposit): void {
    deposits.setDeposit(ctx, this, deposit);
  }

  /** The deposits on proposal `id`, by depositor address. */
  getDeposits(ctx: Context, id: bigint): Promise<{ depositor: Uint8Array; deposit: Deposit }[]> {
    return deposits.getDeposits(ctx, this, id);
  }

  /** Every deposit of every proposal. */
  iterateAllDeposits(ctx: Context): AsyncIterable<Deposit> {
    return deposits.iterateAllDeposits(ctx, this);
  }

  /** Refunds every deposit of proposal `id` to its depositor and deletes it. */
  refundAndDeleteDeposits(ctx: Context, id: bigint): Promise<void> {
    return deposits.refundAndDeleteDeposits(ctx, this, id);
  }

  /** Burns every deposit of proposal `id` (supply decreases) and deletes them. */
  deleteAndBurnDeposits(ctx: Context, id: bigint): Promise<void> {
    return deposits.deleteAndBurnDeposits(ctx, this, id);
  }

  /**
   * Upstream AddDeposit: the proposal must be in its deposit or voting period, the denoms accepted,
   * the min_deposit_ratio met; moves the coins to the gov account, adds to the total, starts the
   * voting period when the minimum is reached. Returns whether voting started.
   */
  addDeposit(ctx: Context, id: bigint, depositor: Uint8Array, amount: Coin[]): Promise<boolean> {
    return deposits.addDeposit(ctx, this, id, depositor, amount);
  }

  // ---- votes (votes.ts) -----------------------------------------------------------------------

  /** The vote of `voter` on proposal `id`, if any. */
  getVote(ctx: Context, id: bigint, voter: Uint8Array): Promise<Vote | undefined> {
    return votes.getVote(ctx, this, id, voter);
  }

  /** Stores a vote (a second vote from the same voter overwrites the first). */
  setVote(ctx: Context, vote: Vote): void {
    votes.setVote(ctx, this, vote);
  }

  /** The votes on proposal `id`, by voter address. */
  getVotes(ctx: Context, id: bigint): Promise<{ voter: Uint8Array; vote: Vote }[]> {
    return votes.getVotes(ctx, this, id);
  }

  /** Every vote on every proposal. */
  iterateAllVotes(ctx: Context): AsyncIterable<Vote> {
    return votes.iterateAllVotes(ctx, this);
  }

  /** Deletes a vote. */
  deleteVote(ctx: Context, id: bigint, voter: Uint8Array): void {
    votes.deleteVote(ctx, this, id, voter);
  }

  /** Upstream AddVote: voting period only (`<id>: inactive proposal` otherwise); re-voting overwrites. */
  addVote(
    ctx: Context,
    id: bigint,
    voter: Uint8Array,
    options: readonly WeightedVoteOption[],
    metadata: string,
  ): Promise<void> {
    return votes.addVote(ctx, this, id, voter, options, metadata);
  }

  // ---- length limits (config, not params) -----------------------------------------------------

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
