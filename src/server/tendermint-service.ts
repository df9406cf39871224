// `chain.base.tendermint.v1beta1.Service` (Cosmos SDK v0.50's cmtservice): blocks, validator
// sets, node info and ABCI queries from the node's hooks, with upstream's checks and messages and
// the `sdk_block` copy whose proposer is a bech32 consensus address.
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { anyPack } from "@bufbuild/protobuf/wkt";
import { GrpcCode } from "../app/errors.ts";
import { currentBech32Prefixes, encodeBech32 } from "../crypto/bech32.ts";
import { Service as TendermintService, type ValidatorSchema } from "../gen/chain/base/tendermint/v1beta1/query_pb.js";
import type {
  BlockSchema as SdkBlockSchema,
  HeaderSchema as SdkHeaderSchema,
} from "../gen/chain/base/tendermint/v1beta1/types_pb.js";
import { PubKeySchema as Ed25519PubKeySchema } from "../gen/chain/crypto/ed25519/keys_pb.js";
import { PubKeySchema as Secp256k1PubKeySchema } from "../gen/chain/crypto/secp256k1/keys_pb.js";
import { BlockSchema } from "../gen/tendermint/types/block_pb.js";
import type { Header } from "../gen/tendermint/types/types_pb.js";
import type { BlockWithId, NodeHooks, ValidatorInfo } from "./query-backend.ts";
import type { ServedRoute } from "./served-routes.ts";
import { type ServiceImpl, serviceRoutes } from "./service-routes.ts";
import { RequestError } from "./status.ts";
import { pageOf } from "./tx-service.ts";

/** The served routes of `chain.base.tendermint.v1beta1.Service` over the node's hooks. */
export function tendermintServiceRoutes(hooks: NodeHooks): ServedRoute[] {
  const impl: ServiceImpl<typeof TendermintService> = {};
  const { nodeInfo, syncing, latestBlockHeight, block, validatorSet, abciQuery } = hooks;
  if (nodeInfo !== undefined) impl.getNodeInfo = () => nodeInfo();
  if (syncing !== undefined) impl.getSyncing = async () => ({ syncing: await syncing() });
  if (latestBlockHeight !== undefined && block !== undefined) {
    const blockAt = async (height: bigint) => {
      const found = await block(height);
      if (found === undefined) throw notFound(`block at height ${height} is not available on this node`);
      return blockResponse(found);
    };
    impl.getLatestBlock = async () => {
      const latest = latestBlockHeight();
      if (latest < 1n) throw notFound("no block has been committed yet");
      return blockAt(latest);
    };
    impl.getBlockByHeight = async (request) => blockAt(checkBlockHeight(request.height, latestBlockHeight()));
  }
  if (latestBlockHeight !== undefined && validatorSet !== undefined) {
    const setAt = async (height: bigint, pagination: Parameters<typeof pageOf>[0]) => {
      const { offset, limit, reverse } = pageOf(pagination);
      const validators = await validatorSet(height);
      if (validators === undefined) throw notFound(`the validator set at height ${height} is not available`);
      const ordered = reverse ? [...validators].reverse() : validators;
      return {
        blockHeight: height,
        validators: ordered.slice(Number(offset), Number(offset + limit)).map(validatorOf),
        pagination: { total: BigInt(validators.length) },
      };
    };
    impl.getLatestValidatorSet = async (request) => {
      const latest = latestBlockHeight();
      if (latest < 1n) throw notFound("no block has been committed yet");
      return setAt(latest, request.pagination);
    };
    impl.getValidatorSetByHeight = async (request) =>
      setAt(checkBlockHeight(request.height, latestBlockHeight()), request.pagination);
  }
  if (abciQuery !== undefined) {
    impl.aBCIQuery = async (request) => {
      if (request.path === "") throw invalid("empty query path");
      return abciQuery({ data: request.data, path: request.path, height: request.height, prove: request.prove });
    };
  }
  return serviceRoutes(TendermintService, impl);
}

function checkBlockHeight(height: bigint, latest: bigint): bigint {
  // Upstream's text, spelling included, so that clients matching on it keep working.
  if (height > latest) throw invalid("requested block height is bigger then the chain length");
  if (height < 1n) throw invalid(`height must be greater than 0, but got ${height}`);
  return height;
}

function blockResponse(found: BlockWithId) {
  const block = create(BlockSchema, found.block);
  const header = block.header;
  const sdkBlock: MessageInitShape<typeof SdkBlockSchema> = {
    header: header === undefined ? undefined : { ...headerFields(header), proposerAddress: consAddress(header) },
    data: block.data,
    evidence: block.evidence,
    lastCommit: block.lastCommit,
  };
  return { blockId: found.blockId, block, sdkBlock };
}

function headerFields(header: Header): MessageInitShape<typeof SdkHeaderSchema> {
  const { version, chainId, height, time, lastBlockId, lastCommitHash, dataHash } = header;
  const { validatorsHash, nextValidatorsHash, consensusHash, appHash, lastResultsHash, evidenceHash } = header;
  return {
    version,
    chainId,
    height,
    time,
    lastBlockId,
    lastCommitHash,
    dataHash,
    validatorsHash,
    nextValidatorsHash,
    consensusHash,
    appHash,
    lastResultsHash,
    evidenceHash,
  };
}

function consAddress(header: Header): string {
  return header.proposerAddress.length === 0 ? "" : encodeBech32(currentBech32Prefixes().cons, header.proposerAddress);
}

function validatorOf(validator: ValidatorInfo): MessageInitShape<typeof ValidatorSchema> {
  const pubKey =
    validator.pubKey.type === "ed25519"
      ? anyPack(Ed25519PubKeySchema, create(Ed25519PubKeySchema, { key: validator.pubKey.key }))
      : anyPack(Secp256k1PubKeySchema, create(Secp256k1PubKeySchema, { key: validator.pubKey.key }));
  // anyPack writes the type.googleapis.com/ form; Cosmos type URLs are "/<name>".
  pubKey.typeUrl = `/${pubKey.typeUrl.slice(pubKey.typeUrl.lastIndexOf("/") + 1)}`;
  return {
    address: encodeBech32(currentBech32Prefixes().cons, validator.address),
    pubKey,
    votingPower: validator.votingPower,
    proposerPriority: validator.proposerPriority,
  };
}

function invalid(message: string): RequestError {
  return new RequestError(GrpcCode.InvalidArgument, message);
}

function notFound(message: string): RequestError {
  return new RequestError(GrpcCode.NotFound, message);
}
