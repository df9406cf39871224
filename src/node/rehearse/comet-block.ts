// `--block FILE`: block H+1 as CometBFT's RPC `/block?height=H+1` returns it (JSON), so that a rehearsal from a
// snapshot or a home without the network's block store runs the network's real block: its time, proposer, hash and
// transactions — on a chain with vote extensions its first tx is height H's extended commit, whose readiness
// signals PreBlock writes to state. With it, the rehearsal's app hash is the one the network's header H+2 carries.
import { readFile } from "node:fs/promises";
import { create } from "@bufbuild/protobuf";
import { TimestampSchema } from "@bufbuild/protobuf/wkt";
import { parseRfc3339 } from "../../config/index.ts";
import { type RequestFinalizeBlock, RequestFinalizeBlockSchema } from "../../gen/tendermint/abci/types_pb.js";
import { RehearsalError } from "./errors.ts";

interface CometBlockJson {
  block_id?: { hash?: unknown };
  block?: {
    header?: { height?: unknown; time?: unknown; proposer_address?: unknown };
    data?: { txs?: unknown };
  };
}

/** Reads `file` (the `/block` answer, whole or its `result`) as the FinalizeBlock request of height `height`. */
export async function readCometBlock(file: string, height: bigint): Promise<RequestFinalizeBlock> {
  const text = await readFile(file, "utf8").catch((err: unknown) => {
    throw new RehearsalError(`--block ${file}: cannot read it: ${(err as Error).message}`, { cause: err });
  });
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new RehearsalError(`--block ${file}: not JSON; expected CometBFT's /block answer for height ${height}`);
  }
  const answer = (isObject(parsed) && isObject(parsed.result) ? parsed.result : parsed) as CometBlockJson;
  const bad = (what: string) =>
    new RehearsalError(`--block ${file}: ${what}; expected CometBFT's /block answer for height ${height}`);
  const header = answer.block?.header;
  if (header === undefined) throw bad("no block.header");
  if (typeof header.height !== "string" || !/^[0-9]+$/.test(header.height)) throw bad("no block.header.height");
  if (BigInt(header.height) !== height) {
    throw new RehearsalError(
      `--block ${file} is block ${header.height}, but the upgrade runs in block ${height} (the state's height + 1)`,
    );
  }
  const time = typeof header.time === "string" ? parseRfc3339(header.time) : undefined;
  if (time === undefined) throw bad("block.header.time is not an RFC 3339 time");
  const proposer = hexBytes(header.proposer_address);
  if (proposer === undefined) throw bad("block.header.proposer_address is not hex");
  const hash = hexBytes(answer.block_id?.hash) ?? new Uint8Array();
  const txs = answer.block?.data?.txs ?? [];
  if (!Array.isArray(txs) || !txs.every((tx) => typeof tx === "string" && /^[A-Za-z0-9+/]*={0,2}$/.test(tx))) {
    throw bad("block.data.txs is not a list of base64 transactions");
  }
  return create(RequestFinalizeBlockSchema, {
    height,
    time: create(TimestampSchema, time),
    proposerAddress: proposer,
    hash,
    txs: txs.map((tx: string) => new Uint8Array(Buffer.from(tx, "base64"))),
    misbehavior: [],
  });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

function hexBytes(value: unknown): Uint8Array | undefined {
  if (typeof value !== "string" || !/^([0-9a-fA-F]{2})*$/.test(value)) return undefined;
  return new Uint8Array(Buffer.from(value, "hex"));
}
