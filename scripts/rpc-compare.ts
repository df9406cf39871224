// Runs one chain two ways — `chaind start` (the embedded engine) and `chaind start --abci` behind a real CometBFT
// v0.38 node — from the same genesis and validator key, drives the same txs through both, then sends every consensus
// RPC request in `rpc-compare-requests.ts` to both (URI GET and JSON-RPC POST) and prints where the JSON shapes
// differ (key sets and order, value kinds: decimal string, hex, base64, number, null, missing).
//
//   node scripts/rpc-compare.ts [--dir DIR] [--keep] [--only SUBSTRING] [--full] [--pruned]
//
// `--pruned` runs both with PRUNING_APP_TOML and a 5-block evidence window (state and blocks pruned), so
// requests at height 1 meet pruning.
// `--initial-height N` starts the chain at N (genesis initial_height), so height 1 is below the first block.
// Values that must differ (hashes, times, heights) are compared by kind only. `--full` prints both answers.
// Everything started is stopped at the end unless `--keep` (then `node scripts/testnet.ts stop --dir DIR/comet`
// and killing the embedded node's pid, printed, stop it).
import { spawn } from "node:child_process";
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { DirectSecp256k1HdWallet, type EncodeObject, Registry } from "@cosmjs/proto-signing";
import { SigningStargateClient } from "@cosmjs/stargate";
import { MsgSend } from "cosmjs-types/cosmos/bank/v1beta1/tx";
import { MsgDelegate } from "cosmjs-types/cosmos/staking/v1beta1/tx";
import { TxRaw } from "cosmjs-types/cosmos/tx/v1beta1/tx";
import { homePaths } from "../src/config/home.ts";
import { setTomlValues } from "../src/config/toml-template.ts";
import { buildRequests, type ChainFacts, type CompareRequest } from "./rpc-compare-requests.ts";
import { shapeDifferences } from "./rpc-compare-shapes.ts";
import { isExtendedCommitTxBase64, validatorSetUpdate, wsSession } from "./rpc-compare-ws.ts";
import { allocatePorts, startTestnet, stopTestnet, type Testnet, waitUntil } from "./testnet/index.ts";

const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const CHAIND_ENTRY = join(PROJECT_ROOT, "chain", "cmd", "chaind.mjs");

/** One node under comparison: where its consensus RPC is and the home its CLI uses. */
export interface Endpoint {
  label: string;
  rpcUrl: string;
  /** chaind's REST gateway (account numbers and sequences for signing). */
  apiUrl: string;
}

/** The raw answer to one request: HTTP status and parsed body (or the text when it is not JSON). */
export interface RawAnswer {
  status: number;
  body: unknown;
}

/** Sends one request in its URI or POST form. */
export async function send(endpoint: Endpoint, request: CompareRequest, form: "get" | "post"): Promise<RawAnswer> {
  let response: Response;
  if (form === "get") {
    response = await fetch(`${endpoint.rpcUrl}/${request.method}${request.query ? `?${request.query}` : ""}`);
  } else {
    const body =
      request.rawBody ??
      JSON.stringify({ jsonrpc: "2.0", id: 7, method: request.method, params: request.params ?? {} });
    response = await fetch(endpoint.rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
  }
  const text = await response.text();
  try {
    return { status: response.status, body: JSON.parse(text) };
  } catch {
    return { status: response.status, body: text };
  }
}

/** Account number and sequence over the REST gateway. */
async function account(endpoint: Endpoint, address: string): Promise<{ accountNumber: bigint; sequence: number }> {
  const response = await fetch(`${endpoint.apiUrl}/chain/auth/v1beta1/accounts/${address}`);
  const body = (await response.json()) as { account?: { account_number: string; sequence: string } };
  if (body.account === undefined) throw new Error(`${endpoint.label} REST account ${address}: ${JSON.stringify(body)}`);
  return { accountNumber: BigInt(body.account.account_number), sequence: Number(body.account.sequence) };
}

// Our type URL over CosmJS's own codec: the field numbers are upstream's, so the bytes are the same.
const REGISTRY = new Registry([
  ["/chain.bank.v1beta1.MsgSend", MsgSend],
  ["/chain.staking.v1beta1.MsgDelegate", MsgDelegate],
]);

/** `count` bank sends of 1, 2, … stake from the mnemonic's account to itself, signed with consecutive sequences. */
async function signedSends(
  endpoint: Endpoint,
  chainId: string,
  mnemonic: string,
  count: number,
  message?: (address: string) => EncodeObject,
): Promise<string[]> {
  const wallet = await DirectSecp256k1HdWallet.fromMnemonic(mnemonic, { prefix: "chain" });
  const [{ address }] = await wallet.getAccounts();
  const client = await SigningStargateClient.offline(wallet, { registry: REGISTRY });
  const { accountNumber, sequence } = await account(endpoint, address);
  const txs: string[] = [];
  for (let i = 0; i < count; i++) {
    const value = MsgSend.fromPartial({
      fromAddress: address,
      toAddress: address,
      amount: [{ denom: "stake", amount: String(i + 1) }],
    });
    const signed = await client.sign(
      address,
      [message?.(address) ?? { typeUrl: "/chain.bank.v1beta1.MsgSend", value }],
      { amount: [{ denom: "stake", amount: "5000" }], gas: "300000" },
      "rpc-compare",
      { accountNumber, sequence: sequence + i, chainId },
    );
    txs.push(Buffer.from(TxRaw.encode(signed).finish()).toString("base64"));
  }
  return txs;
}

async function rpcResult(endpoint: Endpoint, path: string): Promise<Record<string, unknown>> {
  const response = await fetch(`${endpoint.rpcUrl}${path}`);
  const body = (await response.json()) as { result?: Record<string, unknown>; error?: unknown };
  if (body.result === undefined) throw new Error(`${endpoint.label} ${path}: ${JSON.stringify(body.error)}`);
  return body.result;
}

async function waitForTx(endpoint: Endpoint, hash: string): Promise<{ height: string; tx: string }> {
  return waitUntil(
    `tx ${hash} on ${endpoint.label}`,
    async () => {
      const result = await rpcResult(endpoint, `/tx?hash=0x${hash}`);
      return { height: result.height as string, tx: result.tx as string };
    },
    { timeoutMs: 60_000 },
  );
}

async function latest(endpoint: Endpoint): Promise<bigint> {
  const status = await rpcResult(endpoint, "/status");
  return BigInt((status.sync_info as { latest_block_height: string }).latest_block_height);
}

/** The running pair: CometBFT's testnet of one, and the embedded node on a copy of its home. */
export interface Pair {
  dir: string;
  chainId: string;
  comet: Endpoint;
  embedded: Endpoint;
  net: Testnet;
  embeddedProcess: ReturnType<typeof spawn>;
}

/** app.toml settings under which both nodes prune: state beyond 2 versions back, blocks beyond 3 back. */
export const PRUNING_APP_TOML = {
  pruning: "custom",
  "pruning-keep-recent": "2",
  "pruning-interval": "10",
  "min-retain-blocks": 3,
};

/**
 * Sets up and starts both nodes; the embedded one runs from a copy of the CometBFT home's config and keys.
 * `appToml` settings apply to both (the CometBFT pair is set up, stopped, changed and started again).
 */
export async function startPair(
  dir: string,
  log: (line: string) => void = () => {},
  appToml?: Record<string, string | number | boolean>,
  initialHeight?: number,
): Promise<Pair> {
  const options = {
    dir: join(dir, "comet"),
    validators: 1,
    timeoutCommit: "200ms",
    log,
    minHeight: (initialHeight ?? 1) + 1,
    editGenesis: (genesis: Record<string, unknown>) => {
      if (initialHeight !== undefined) genesis.initial_height = String(initialHeight);
      // The retain height Commit returns keeps the evidence window (upstream's rule): a short one lets blocks go.
      if (appToml !== undefined) {
        const params = genesis.consensus_params as { evidence: { max_age_num_blocks: string } };
        params.evidence.max_age_num_blocks = "5";
      }
    },
  };
  let net = await startTestnet(options);
  if (appToml !== undefined) {
    await stopTestnet(net, { graceMs: 5_000 });
    const file = homePaths(net.nodes[0].home).appToml;
    await writeFile(file, setTomlValues(await readFile(file, "utf8"), appToml, file));
    net = await startTestnet(options);
  }
  const node = net.nodes[0];
  const embeddedHome = join(dir, "embedded");
  try {
    await mkdir(embeddedHome, { recursive: true });
    await cp(homePaths(node.home).configDir, homePaths(embeddedHome).configDir, { recursive: true });
    await cp(homePaths(node.home).keyringTestDir, homePaths(embeddedHome).keyringTestDir, { recursive: true });
    await mkdir(homePaths(embeddedHome).dataDir, { recursive: true });
    await writeFile(
      homePaths(embeddedHome).privValidatorState,
      `${JSON.stringify({ height: "0", round: 0, step: 0 }, null, 2)}\n`,
    );
    const [ports] = await allocatePorts(1);
    const paths = homePaths(embeddedHome);
    const loopback = (port: number) => `tcp://127.0.0.1:${port}`;
    await writeFile(
      paths.configToml,
      setTomlValues(
        await readFile(paths.configToml, "utf8"),
        { "rpc.laddr": loopback(ports.rpc), "p2p.laddr": loopback(ports.p2p), proxy_app: loopback(ports.abci) },
        paths.configToml,
      ),
    );
    await writeFile(
      paths.appToml,
      setTomlValues(
        await readFile(paths.appToml, "utf8"),
        { "api.address": loopback(ports.api), "grpc.address": `127.0.0.1:${ports.grpc}` },
        paths.appToml,
      ),
    );
    const logFile = join(embeddedHome, "chaind.log");
    const { openSync } = await import("node:fs");
    const fd = openSync(logFile, "a");
    const child = spawn(process.execPath, [CHAIND_ENTRY, "start", "--home", embeddedHome], {
      stdio: ["ignore", fd, fd],
    });
    const embedded: Endpoint = {
      label: "embedded",
      rpcUrl: `http://127.0.0.1:${ports.rpc}`,
      apiUrl: `http://127.0.0.1:${ports.api}`,
    };
    await waitUntil("the embedded node's block 2", async () => ((await latest(embedded)) >= 2n ? true : undefined), {
      timeoutMs: 90_000,
    });
    return {
      dir,
      chainId: net.chainId,
      comet: { label: "cometbft", rpcUrl: node.rpcUrl, apiUrl: node.apiUrl },
      embedded,
      net,
      embeddedProcess: child,
    };
  } catch (error) {
    await stopTestnet(net, { graceMs: 3_000 });
    throw error;
  }
}

/** Stops both nodes (CometBFT and its chaind; the embedded chaind). */
export async function stopPair(pair: Pair): Promise<void> {
  await stopTestnet(pair.net, { graceMs: 5_000 });
  if (pair.embeddedProcess.exitCode === null && pair.embeddedProcess.signalCode === null) {
    const exited = new Promise((done) => pair.embeddedProcess.once("exit", done));
    pair.embeddedProcess.kill("SIGTERM");
    const timer = setTimeout(() => pair.embeddedProcess.kill("SIGKILL"), 5_000);
    await exited;
    clearTimeout(timer);
  }
}

/**
 * Drives the same three bank sends through both nodes — broadcast_tx_commit (POST), broadcast_tx_sync (GET) and
 * broadcast_tx_async (POST), whose successful answers are compared too — and gathers what the requests need.
 */
export async function driveTxs(
  pair: Pair,
): Promise<{ comet: ChainFacts; embedded: ChainFacts; rows: ComparisonRow[] }> {
  const { address, mnemonic } = await sender(pair);
  const drive = async (endpoint: Endpoint) => {
    const [first, second, third] = await signedSends(endpoint, pair.chainId, mnemonic, 3);
    const commit = await send(endpoint, { name: "", method: "broadcast_tx_commit", params: { tx: first } }, "post");
    const hex = Buffer.from(second, "base64").toString("hex");
    const sync = await send(endpoint, { name: "", method: "broadcast_tx_sync", query: `tx=0x${hex}` }, "get");
    const async = await send(endpoint, { name: "", method: "broadcast_tx_async", params: { tx: third } }, "post");
    const hash = (commit.body as { result?: { hash: string } }).result?.hash;
    if (hash === undefined) throw new Error(`broadcast_tx_commit on ${endpoint.label}: ${JSON.stringify(commit.body)}`);
    const included = await waitForTx(endpoint, hash);
    const syncHash = (sync.body as { result: { hash: string } }).result.hash;
    const asyncHash = (async.body as { result: { hash: string } }).result.hash;
    const heights = [included, await waitForTx(endpoint, syncHash), await waitForTx(endpoint, asyncHash)];
    const last = BigInt(Math.max(...heights.map((t) => Number(t.height))));
    // Past the last tx's block and the one after it: the latest block and its results are empty on both chains.
    await waitUntil(
      `${endpoint.label} past the txs`,
      async () => ((await latest(endpoint)) > last + 1n ? true : undefined),
      { timeoutMs: 30_000 },
    );
    const facts: ChainFacts = {
      txHash: hash,
      txHeight: included.height,
      txBase64: included.tx,
      address,
      chainId: pair.chainId,
    };
    return { facts, answers: { commit, sync, async } };
  };
  const comet = await drive(pair.comet);
  const embedded = await drive(pair.embedded);
  const rows: ComparisonRow[] = (["commit", "sync", "async"] as const).map((kind) => ({
    name: `broadcast_tx_${kind} a fresh signed tx`,
    form: kind === "sync" ? "get" : "post",
    differences: shapeDifferences(comet.answers[kind], embedded.answers[kind]),
    comet: comet.answers[kind],
    embedded: embedded.answers[kind],
  }));
  return { comet: comet.facts, embedded: embedded.facts, rows };
}

/** One line of the comparison: the request and the differences found (empty when the shapes agree). */
export interface ComparisonRow {
  name: string;
  form: "get" | "post" | "ws";
  differences: string[];
  comet: RawAnswer;
  embedded: RawAnswer;
}

/** The validator's address and mnemonic (the account every compared tx comes from). */
async function sender(pair: Pair): Promise<{ address: string; mnemonic: string }> {
  const manifest = JSON.parse(await readFile(join(pair.dir, "comet", "testnet.json"), "utf8")) as {
    nodes: { address: string; mnemonic: string }[];
  };
  return manifest.nodes[0];
}

/**
 * The same WebSocket session (rpc-compare-ws.ts) on both nodes, each with a fresh tx, diffed message by message;
 * then a self-delegation on each, for the ValidatorSetUpdates event.
 */
export async function compareEvents(pair: Pair): Promise<ComparisonRow[]> {
  const { mnemonic } = await sender(pair);
  const operator = (
    JSON.parse(await readFile(join(pair.dir, "comet", "testnet.json"), "utf8")) as {
      nodes: { operator: string }[];
    }
  ).nodes[0].operator;
  const delegate = (address: string): EncodeObject => ({
    typeUrl: "/chain.staking.v1beta1.MsgDelegate",
    value: MsgDelegate.fromPartial({
      delegatorAddress: address,
      validatorAddress: operator,
      amount: { denom: "stake", amount: "5000000" },
    }),
  });
  const broadcast = async (endpoint: Endpoint, message?: (address: string) => EncodeObject) => {
    const [tx] = await signedSends(endpoint, pair.chainId, mnemonic, 1, message);
    const answer = await send(endpoint, { name: "", method: "broadcast_tx_sync", params: { tx } }, "post");
    if ((answer.body as { result?: { code: number } }).result?.code !== 0) {
      throw new Error(`broadcast on ${endpoint.label}: ${JSON.stringify(answer.body)}`);
    }
  };
  const setUpdates = async (endpoint: Endpoint) => ({
    "event ValidatorSetUpdates": await validatorSetUpdate(endpoint.rpcUrl, () => broadcast(endpoint, delegate)),
  });
  const session = async (endpoint: Endpoint) => ({
    ...(await wsSession({ rpcUrl: endpoint.rpcUrl, broadcastFreshTx: () => broadcast(endpoint) })),
    ...(await setUpdates(endpoint)),
  });
  const comet: Record<string, unknown> = await session(pair.comet);
  const embedded: Record<string, unknown> = await session(pair.embedded);
  return Object.keys(comet).map((name) => {
    const a = { status: 0, body: comet[name] };
    const b = { status: 0, body: embedded[name] };
    return { name: `ws ${name}`, form: "ws", differences: shapeDifferences(a, b), comet: a, embedded: b };
  });
}

/** `/app/simulate` of a fresh signed tx (current sequence, never broadcast) on both, in both forms. */
export async function compareSimulate(pair: Pair): Promise<ComparisonRow[]> {
  const { mnemonic } = await sender(pair);
  const [cometTx] = await signedSends(pair.comet, pair.chainId, mnemonic, 1);
  const [embeddedTx] = await signedSends(pair.embedded, pair.chainId, mnemonic, 1);
  const request = (tx: string): CompareRequest => {
    const hex = Buffer.from(tx, "base64").toString("hex");
    return {
      name: "abci_query /app/simulate a fresh signed tx",
      method: "abci_query",
      query: `path="/app/simulate"&data=0x${hex}`,
      params: { path: "/app/simulate", data: hex },
    };
  };
  const rows: ComparisonRow[] = [];
  for (const form of ["get", "post"] as const) {
    const comet = await send(pair.comet, request(cometTx), form);
    const embedded = await send(pair.embedded, request(embeddedTx), form);
    const differences = shapeDifferences(comet, embedded);
    const value = (a: RawAnswer) => (a.body as { result?: { response?: { value?: string } } }).result?.response?.value;
    // The value is the simulation's JSON: its shape is compared too.
    const parse = (a: RawAnswer) => JSON.parse(Buffer.from(value(a) ?? "", "base64").toString() || "null");
    const inner = shapeDifferences({ status: 0, body: parse(comet) }, { status: 0, body: parse(embedded) });
    differences.push(...inner.map((d) => `value ${d}`));
    rows.push({ name: request(cometTx).name, form, differences, comet, embedded });
  }
  return rows;
}

/** Sends every request to both nodes and diffs the shapes. */
export async function compareAll(
  pair: Pair,
  facts: { comet: ChainFacts; embedded: ChainFacts },
  only?: string,
): Promise<ComparisonRow[]> {
  const rows: ComparisonRow[] = [];
  const cometRequests = buildRequests(facts.comet);
  const embeddedRequests = buildRequests(facts.embedded);
  for (const [i, request] of cometRequests.entries()) {
    if (only !== undefined && !request.name.includes(only)) continue;
    for (const form of request.forms ?? (["get", "post"] as const)) {
      // CometBFT stores a block before executing it, so its latest block's results can be missing for a moment.
      const comet = await waitUntil(
        `CometBFT's answer to ${request.name}`,
        async () => {
          const answer = await send(pair.comet, request, form);
          return /could not find results for height/.test(JSON.stringify(answer.body)) ? undefined : answer;
        },
        { timeoutMs: 10_000 },
      );
      const embedded = await send(pair.embedded, embeddedRequests[i], form);
      withoutExtendedCommitTxs(comet.body);
      const differences = shapeDifferences(comet, embedded, request.exact ?? []);
      rows.push({ name: request.name, form, differences, comet, embedded });
    }
  }
  return rows;
}

/**
 * Takes the proposer's extended-commit txs out of a tx_search answer: CometBFT indexes every tx of a block, the
 * embedded engine leaves that one out (docs/COMPATIBILITY.md row 22), so the user txs are what is compared.
 */
export function withoutExtendedCommitTxs(body: unknown): void {
  const result = (body as { result?: { txs?: { tx?: string }[]; total_count?: string } } | undefined)?.result;
  if (!Array.isArray(result?.txs)) return;
  const kept = result.txs.filter((entry) => !isExtendedCommitTxBase64(entry.tx));
  if (result.total_count !== undefined) {
    result.total_count = String(Number(result.total_count) - (result.txs.length - kept.length));
  }
  result.txs = kept;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      dir: { type: "string" },
      keep: { type: "boolean", default: false },
      only: { type: "string" },
      full: { type: "boolean", default: false },
      pruned: { type: "boolean", default: false },
      "initial-height": { type: "string" },
    },
  });
  const dir = values.dir ?? (await mkdtemp(join(tmpdir(), "rpc-compare-")));
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const initialHeight = values["initial-height"] === undefined ? undefined : Number(values["initial-height"]);
  const pair = await startPair(dir, log, values.pruned ? PRUNING_APP_TOML : undefined, initialHeight);
  try {
    log(`cometbft at ${pair.comet.rpcUrl}, embedded at ${pair.embedded.rpcUrl}; driving txs`);
    const facts = await driveTxs(pair);
    if (values.pruned) {
      // Past a pruning run (every 10 heights) that removes height 2's state on both.
      for (const endpoint of [pair.comet, pair.embedded]) {
        await waitUntil(
          `${endpoint.label} at height 25`,
          async () => ((await latest(endpoint)) >= 25n ? true : undefined),
          {
            timeoutMs: 60_000,
          },
        );
      }
    }
    await writeFile(join(dir, "facts.json"), `${JSON.stringify(facts, null, 2)}\n`);
    const rows = [
      ...facts.rows,
      ...(await compareSimulate(pair)),
      ...(await compareAll(pair, facts, values.only)),
      ...(await compareEvents(pair)),
    ];
    let differing = 0;
    for (const row of rows) {
      const mark = row.differences.length === 0 ? "same " : "DIFF ";
      if (row.differences.length > 0) differing++;
      process.stdout.write(`${mark} ${row.form.padEnd(4)} ${row.name}\n`);
      for (const d of row.differences) process.stdout.write(`        ${d}\n`);
      if (values.full || row.differences.length > 0) {
        const cut = (v: unknown) => JSON.stringify(v).slice(0, values.full ? 4000 : 600);
        process.stdout.write(`        comet    ${row.comet.status} ${cut(row.comet.body)}\n`);
        process.stdout.write(`        embedded ${row.embedded.status} ${cut(row.embedded.body)}\n`);
      }
    }
    process.stdout.write(`${rows.length} comparisons, ${differing} with differences\n`);
    await writeFile(join(dir, "rows.json"), `${JSON.stringify(rows, null, 2)}\n`);
  } finally {
    if (values.keep) {
      log(`kept running in ${dir}: embedded pid ${pair.embeddedProcess.pid}`);
      pair.embeddedProcess.unref();
    } else {
      await stopPair(pair);
      if (values.dir === undefined) await rm(dir, { recursive: true, force: true });
    }
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await main();
}
