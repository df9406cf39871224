// Gov genesis: upstream's JSON shape (deprecated deposit/voting/tally params as null), validation,
// InitGenesis (proposals re-queued by status, the gov account's balance checked against the
// deposits) and ExportGenesis.
import { create, type JsonObject, type JsonValue, type Registry } from "@bufbuild/protobuf";
import { addCoins, type Coin, coinsFromProto, coinsToString } from "../../app/coins.ts";
import type { Context } from "../../app/context.ts";
import { fromProtoJson, toProtoJson } from "../../app/proto-json.ts";
import { UserError } from "../../errors/user-error.ts";
import { type GenesisState, GenesisStateSchema } from "../../gen/chain/gov/v1/genesis_pb.js";
import { ProposalStatus } from "../../gen/chain/gov/v1/gov_pb.js";
import type { GovKeeper } from "./keeper.ts";
import { GOV_MODULE_NAME } from "./keys.ts";
import { defaultGovParams, validateGovParams } from "./params.ts";

/** Thrown for a gov genesis that cannot be used; the message says what is wrong. */
export class GovGenesisError extends UserError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "GovGenesisError";
  }
}

/** The default gov genesis (upstream defaults; proposal ids start at 1). */
export function defaultGovGenesis(): GenesisState {
  return create(GenesisStateSchema, { startingProposalId: 1n, params: defaultGovParams(), constitution: "" });
}

/** Gov genesis as upstream's JSON. */
export function govGenesisToJson(genesis: GenesisState, registry: Registry): JsonValue {
  const json = toProtoJson(GenesisStateSchema, genesis, registry) as JsonObject;
  // Upstream prints the deprecated params as null rather than leaving them out.
  return {
    starting_proposal_id: json.starting_proposal_id,
    deposits: json.deposits,
    votes: json.votes,
    proposals: json.proposals,
    deposit_params: json.deposit_params ?? null,
    voting_params: json.voting_params ?? null,
    tally_params: json.tally_params ?? null,
    params: json.params ?? null,
    constitution: json.constitution,
  };
}

/** Parses gov genesis JSON (proposal messages resolve through `registry`). */
export function govGenesisFromJson(json: JsonValue, registry: Registry): GenesisState {
  if (json === null || typeof json !== "object" || Array.isArray(json)) {
    throw new GovGenesisError("gov genesis must be a JSON object");
  }
  try {
    return fromProtoJson(GenesisStateSchema, json, registry);
  } catch (err) {
    throw new GovGenesisError(`cannot parse gov genesis: ${(err as Error).message}`, { cause: err });
  }
}

/** Upstream ValidateGenesis: starting id, unique proposals, deposits and votes, valid params. */
export function validateGovGenesis(genesis: GenesisState): void {
  if (genesis.startingProposalId === 0n) throw new GovGenesisError("starting proposal id must be greater than 0");
  const ids = new Set<bigint>();
  for (const proposal of genesis.proposals) {
    if (ids.has(proposal.id)) throw new GovGenesisError(`duplicate proposal id: ${proposal.id}`);
    ids.add(proposal.id);
  }
  const deposits = new Set<string>();
  for (const deposit of genesis.deposits) {
    if (!ids.has(deposit.proposalId)) {
      throw new GovGenesisError(`deposit of ${deposit.depositor} has non-existent proposal id: ${deposit.proposalId}`);
    }
    const key = `${deposit.proposalId}/${deposit.depositor}`;
    if (deposits.has(key)) throw new GovGenesisError(`duplicate deposit: ${key}`);
    deposits.add(key);
  }
  const votes = new Set<string>();
  for (const vote of genesis.votes) {
    if (!ids.has(vote.proposalId)) {
      throw new GovGenesisError(`vote of ${vote.voter} has non-existent proposal id: ${vote.proposalId}`);
    }
    const key = `${vote.proposalId}/${vote.voter}`;
    if (votes.has(key)) throw new GovGenesisError(`duplicate vote: ${key}`);
    votes.add(key);
  }
  if (genesis.params === undefined) throw new GovGenesisError("params cannot be nil");
  try {
    validateGovParams(genesis.params);
  } catch (err) {
    throw new GovGenesisError((err as Error).message, { cause: err });
  }
}

/** Writes the genesis into state (upstream InitGenesis). */
export async function initGovGenesis(ctx: Context, keeper: GovKeeper, genesis: GenesisState): Promise<void> {
  keeper.setNextProposalId(ctx, genesis.startingProposalId);
  keeper.setParams(ctx, genesis.params ?? defaultGovParams());
  keeper.setConstitution(ctx, genesis.constitution);
  // Creates the gov module account (and its account number) if genesis did not.
  await keeper.accountKeeper.getModuleAccount(ctx, GOV_MODULE_NAME);

  let totalDeposits: Coin[] = [];
  for (const deposit of genesis.deposits) {
    keeper.setDeposit(ctx, deposit);
    totalDeposits = addCoins(totalDeposits, coinsFromProto(deposit.amount));
  }
  for (const vote of genesis.votes) keeper.setVote(ctx, vote);
  for (const proposal of genesis.proposals) {
    if (proposal.status === ProposalStatus.DEPOSIT_PERIOD && proposal.depositEndTime !== undefined) {
      keeper.insertInactiveQueue(ctx, proposal.id, proposal.depositEndTime);
    } else if (proposal.status === ProposalStatus.VOTING_PERIOD && proposal.votingEndTime !== undefined) {
      keeper.insertActiveQueue(ctx, proposal.id, proposal.votingEndTime);
    }
    keeper.setProposal(ctx, proposal);
  }

  const balance = await keeper.bankKeeper.getAllBalances(ctx, keeper.moduleAddress());
  if (coinsToString(balance) !== coinsToString(totalDeposits)) {
    throw new GovGenesisError(
      `expected module account was ${coinsToString(balance)} but we got ${coinsToString(totalDeposits)}`,
    );
  }
}

/** Reads the state back (upstream ExportGenesis). */
export async function exportGovGenesis(ctx: Context, keeper: GovKeeper): Promise<GenesisState> {
  const proposals = [];
  for await (const proposal of keeper.iterateProposals(ctx)) proposals.push(proposal);
  const deposits = [];
  for await (const deposit of keeper.iterateAllDeposits(ctx)) deposits.push(deposit);
  const votes = [];
  for await (const vote of keeper.iterateAllVotes(ctx)) votes.push(vote);
  return create(GenesisStateSchema, {
    startingProposalId: await keeper.getNextProposalId(ctx),
    deposits,
    votes,
    proposals,
    params: await keeper.getParams(ctx),
    constitution: await keeper.getConstitution(ctx),
  });
}
