// A chain's own module gets its transactions and queries through the same path as the built-in ones, with no
// framework file naming it: the guestbook's Msg `Sign` and Query `Signature` (protos in proto/, code in gen/) are
// registered by the module (REST route from the query's `google.api.http` option, gRPC, Swagger), and its CLI
// (client/, listed in the chain's definition as `moduleClis`) adds `query guestbook …` and `tx guestbook …` and the
// types `query tx` decodes. A real guestbookd node process and a separate guestbookd process per command, as a user
// runs them. Imports only `chaind/...` and the chain's own files, as a chain outside this repository would.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type DevHome, prepareDevHome } from "chaind/node";
import { useChain } from "chaind/runtime";
import {
  type BannerEndpoints,
  bannerEndpoints,
  type ChainBinary,
  killAllStarted,
  LOOPBACK_PORT_FLAGS,
  spawnChainBinary,
  tempDir,
  waitForHeight,
} from "chaind/testing";
import { guestbookChain } from "./app.ts";

const GUESTBOOKD: ChainBinary = {
  node: process.execPath,
  entry: join(import.meta.dirname, "cmd", "guestbookd.ts"),
  cwd: import.meta.dirname,
  releaseEnv: "GUESTBOOK_RELEASE",
};

let dir: Awaited<ReturnType<typeof tempDir>>;
let dev: DevHome;
let endpoints: BannerEndpoints;
let node: string;

before(async () => {
  dir = await tempDir("guestbook-cli-");
  useChain(guestbookChain);
  dev = await prepareDevHome({ home: join(dir.path, "home") });
  const started = spawnChainBinary(GUESTBOOKD, ["--home", dev.home, "start", ...LOOPBACK_PORT_FLAGS], {
    userHome: join(dir.path, "user"),
  });
  endpoints = await bannerEndpoints(started);
  await waitForHeight(endpoints.rpc, 1n);
  node = endpoints.rpc.replace(/^http:/, "tcp:");
});

after(async () => {
  await killAllStarted();
  await dir?.remove();
});

/** Runs `guestbookd <args>` as its own process against the node. */
async function guestbookd(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return spawnChainBinary(GUESTBOOKD, [...args, "--home", dev.home], { userHome: join(dir.path, "user") }).exited;
}

async function json<T>(args: string[]): Promise<T> {
  const run = await guestbookd([...args, "-o", "json"]);
  assert.equal(run.code, 0, `guestbookd ${args.join(" ")}: ${run.stderr}`);
  return JSON.parse(run.stdout) as T;
}

test("query and tx help list the guestbook's commands beside the built-in modules'", async () => {
  const query = await guestbookd(["query", "--help"]);
  assert.equal(query.code, 0, query.stderr);
  assert.match(query.stdout, /^ {2}guestbook +Querying commands for the guestbook module$/m);
  assert.match(query.stdout, /^ {2}bank +Querying commands for the bank module$/m);
  const tx = await guestbookd(["tx", "--help"]);
  assert.match(tx.stdout, /^ {2}guestbook +Guestbook transaction subcommands$/m);
  const signature = await guestbookd(["query", "guestbook", "signature", "--help"]);
  assert.match(signature.stdout, /Usage: guestbookd query guestbook signature \[options\] <name>/);
  assert.match(signature.stdout, /--grpc-addr/);
});

test("tx guestbook sign commits a MsgSign; its Query answers over the CLI, gRPC and REST; query tx decodes it", async () => {
  const sent = await json<{ code: number; txhash: string }>([
    "tx",
    "guestbook",
    "sign",
    "lin",
    "hello from a tx",
    "--from",
    "alice",
    "--keyring-backend",
    "test",
    "--chain-id",
    dev.chainId,
    "--node",
    node,
    "-y",
    "--wait",
  ]);
  assert.equal(sent.code, 0);

  const expected = { name: "lin", message: "hello from a tx" };
  assert.deepEqual(await json(["query", "guestbook", "signature", "lin", "--node", node]), expected);
  assert.deepEqual(
    await json(["query", "guestbook", "signature", "lin", "--grpc-addr", endpoints.grpc as string]),
    expected,
  );
  const rest = await fetch(`${endpoints.rest}/guestbook/v1/signatures/lin`);
  assert.equal(rest.status, 200);
  assert.deepEqual(await rest.json(), expected);
  const swagger = (await (await fetch(endpoints.swagger as string)).json()) as { paths: Record<string, unknown> };
  assert.ok("/guestbook/v1/signatures/{name}" in swagger.paths, Object.keys(swagger.paths).join(" "));

  const found = await json<{ tx: { body: { messages: Record<string, unknown>[] } } }>([
    "query",
    "tx",
    sent.txhash,
    "--node",
    node,
  ]);
  const alice = dev.keys.find((key) => key.name === "alice")?.address;
  assert.deepEqual(found.tx.body.messages, [
    { "@type": "/guestbook.v1.MsgSign", signer: alice, name: "lin", message: "hello from a tx" },
  ]);
});

test("the guestbook's errors: a missing entry is the node's NotFound, a too-long message the Msg handler's registered error", async () => {
  const missing = await guestbookd(["query", "guestbook", "signature", "nobody", "--node", node]);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /^Error: .*no signature of "nobody"/);
  assert.doesNotMatch(missing.stderr, /\n\s+at /);
  const tooLong = await guestbookd([
    "tx",
    "guestbook",
    "sign",
    "lin",
    "x".repeat(281),
    "--from",
    "alice",
    "--keyring-backend",
    "test",
    "--chain-id",
    dev.chainId,
    "--node",
    node,
    "-y",
    "--wait",
  ]);
  assert.equal(tooLong.code, 1, tooLong.stdout);
  assert.match(tooLong.stderr, /message of 281 characters, at most 280: invalid guestbook entry/);
});
