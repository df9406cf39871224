// The consensus RPC requests rpc-compare.ts sends to both nodes: every method of docs/CONTRACT.md §5 with and without
// parameters, their error cases, and ABCI Query paths. Built per chain from what the txs left on it.
import { addressFromBech32 } from "../src/crypto/bech32.ts";

/** What a chain's requests refer to: a tx it included and the account that sent it. */
export interface ChainFacts {
  txHash: string;
  txHeight: string;
  txBase64: string;
  address: string;
  chainId: string;
}

/** One request, in its URI form (`query`) and its JSON-RPC form (`params`, or a raw POST body). */
export interface CompareRequest {
  name: string;
  method: string;
  /** URI query string (values already quoted/encoded as CometBFT's URI form takes them). */
  query?: string;
  params?: unknown;
  rawBody?: string;
  forms?: readonly ("get" | "post")[];
  /** Dotted paths whose values must be equal, not just the same kind. */
  exact?: string[];
}

const FAR = "999999999";

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");

/** `/chain.bank.v1beta1.Query/AllBalances` request bytes: field 1, the bech32 address. */
function allBalancesRequest(address: string): Uint8Array {
  const text = Buffer.from(address, "utf8");
  return new Uint8Array([0x0a, text.length, ...text]);
}

/** Every request, for one chain. */
export function buildRequests(facts: ChainFacts): CompareRequest[] {
  const h = facts.txHeight;
  const accountBytes = addressFromBech32(facts.address);
  const balanceKey = new Uint8Array([0x02, accountBytes.length, ...accountBytes, ...Buffer.from("stake")]);
  const balancesPrefix = new Uint8Array([0x02, accountBytes.length, ...accountBytes]);
  const txHex = Buffer.from(facts.txBase64, "base64").toString("hex");
  const abci = (name: string, path: string, data: Uint8Array, extra: Record<string, string> = {}): CompareRequest => {
    const queryParts = [`path="${path}"`, `data=0x${hex(data)}`, ...Object.entries(extra).map(([k, v]) => `${k}=${v}`)];
    const params: Record<string, unknown> = { path, data: hex(data) };
    // JSON-RPC: int64 as a string, bool as a JSON boolean (CometBFT refuses "true").
    for (const [k, v] of Object.entries(extra)) params[k] = k === "prove" ? v === "true" : v;
    return { name: `abci_query ${name}`, method: "abci_query", query: queryParts.join("&"), params };
  };
  return [
    { name: "health", method: "health" },
    { name: "status", method: "status" },
    { name: "abci_info", method: "abci_info" },
    { name: "genesis", method: "genesis" },
    { name: "unknown method", method: "no_such_method" },

    abci("/app/version", "/app/version", new Uint8Array()),
    abci("/app/simulate (an included tx: sequence mismatch)", "/app/simulate", Buffer.from(facts.txBase64, "base64")),
    abci("/app/simulate garbage", "/app/simulate", new Uint8Array([1, 2, 3])),
    abci("/store/bank/key", "/store/bank/key", balanceKey),
    abci("/store/bank/key prove", "/store/bank/key", balanceKey, { prove: "true" }),
    abci("/store/bank/key prove at tx height", "/store/bank/key", balanceKey, { prove: "true", height: h }),
    abci("/store/bank/key absent key prove", "/store/bank/key", new Uint8Array([0x02, 0x01, 0x09]), { prove: "true" }),
    abci("/store/bank/key prove height 1", "/store/bank/key", balanceKey, { prove: "true", height: "1" }),
    abci("/store/bank/subspace", "/store/bank/subspace", balancesPrefix),
    abci("/store/nope/key", "/store/nope/key", balanceKey),
    abci("/store/bank/other", "/store/bank/other", balanceKey),
    abci("unknown path", "/no/such/path", new Uint8Array()),
    abci("grpc AllBalances", "/chain.bank.v1beta1.Query/AllBalances", allBalancesRequest(facts.address)),
    abci("grpc AllBalances at tx height", "/chain.bank.v1beta1.Query/AllBalances", allBalancesRequest(facts.address), {
      height: h,
    }),
    abci("grpc AllBalances future height", "/chain.bank.v1beta1.Query/AllBalances", allBalancesRequest(facts.address), {
      height: FAR,
    }),
    abci("grpc AllBalances height -1", "/chain.bank.v1beta1.Query/AllBalances", allBalancesRequest(facts.address), {
      height: "-1",
    }),
    abci(
      "grpc AllBalances height 2 (pruned with --pruned)",
      "/chain.bank.v1beta1.Query/AllBalances",
      allBalancesRequest(facts.address),
      {
        height: "2",
      },
    ),
    abci("store key height 2 (pruned with --pruned)", "/store/bank/key", balanceKey, { height: "2" }),
    abci("grpc AllBalances bad bytes", "/chain.bank.v1beta1.Query/AllBalances", new Uint8Array([0xff, 0xff])),
    abci("store key future height", "/store/bank/key", balanceKey, { height: FAR }),
    {
      name: "abci_query no params",
      method: "abci_query",
    },
    abci("/store/bank/key height 0 (latest)", "/store/bank/key", balanceKey, { height: "0" }),
    {
      name: "abci_query prove as string",
      method: "abci_query",
      params: { path: "/app/version", prove: "true" },
      forms: ["post"],
    },
    {
      name: "tx_search prove as string",
      method: "tx_search",
      params: { query: `tx.height=${h}`, prove: "true" },
      forms: ["post"],
    },
    { name: "block_results height 0", method: "block_results", query: "height=0", params: { height: "0" } },
    { name: "validators height 0", method: "validators", query: "height=0", params: { height: "0" } },
    { name: "commit height 0", method: "commit", query: "height=0", params: { height: "0" } },
    { name: "block empty height", method: "block", query: "height=", forms: ["get"] },
    { name: "GET root", method: "", forms: ["get"] },
    { name: "GET unknown nested path", method: "block/extra", forms: ["get"] },
    { name: "abci_query bad data", method: "abci_query", query: `path="/app/version"&data=zz`, params: { data: "zz" } },

    { name: "block latest", method: "block" },
    { name: "block at tx height", method: "block", query: `height=${h}`, params: { height: h } },
    { name: "block height 1", method: "block", query: "height=1", params: { height: "1" } },
    { name: "block height 0", method: "block", query: "height=0", params: { height: "0" } },
    { name: "block height -1", method: "block", query: "height=-1", params: { height: "-1" } },
    { name: "block too high", method: "block", query: `height=${FAR}`, params: { height: FAR } },
    { name: "block bad height", method: "block", query: "height=abc", params: { height: "abc" } },
    { name: "block height as number", method: "block", params: { height: 1 }, forms: ["post"] },
    { name: "block height quoted in URI", method: "block", query: `height="1"`, forms: ["get"] },
    { name: "block positional params", method: "block", params: ["1"], forms: ["post"] },

    { name: "block_results latest", method: "block_results" },
    { name: "block_results at tx height", method: "block_results", query: `height=${h}`, params: { height: h } },
    { name: "block_results height 1", method: "block_results", query: "height=1", params: { height: "1" } },
    { name: "block_results too high", method: "block_results", query: `height=${FAR}`, params: { height: FAR } },

    { name: "header latest", method: "header" },
    { name: "header at tx height", method: "header", query: `height=${h}`, params: { height: h } },
    { name: "header too high", method: "header", query: `height=${FAR}`, params: { height: FAR } },
    { name: "header height 0", method: "header", query: "height=0", params: { height: "0" } },

    { name: "commit latest", method: "commit" },
    { name: "commit at tx height", method: "commit", query: `height=${h}`, params: { height: h } },
    { name: "commit height 1", method: "commit", query: "height=1", params: { height: "1" } },
    { name: "commit too high", method: "commit", query: `height=${FAR}`, params: { height: FAR } },

    { name: "blockchain no params", method: "blockchain" },
    {
      name: "blockchain 1..3",
      method: "blockchain",
      query: "minHeight=1&maxHeight=3",
      params: { minHeight: "1", maxHeight: "3" },
    },
    {
      name: "blockchain min>max",
      method: "blockchain",
      query: "minHeight=5&maxHeight=3",
      params: { minHeight: "5", maxHeight: "3" },
    },
    {
      name: "blockchain max too high",
      method: "blockchain",
      query: `minHeight=1&maxHeight=${FAR}`,
      params: { minHeight: "1", maxHeight: FAR },
    },
    { name: "blockchain min too high", method: "blockchain", query: `minHeight=${FAR}`, params: { minHeight: FAR } },
    {
      name: "blockchain negative",
      method: "blockchain",
      query: "minHeight=-1&maxHeight=2",
      params: { minHeight: "-1", maxHeight: "2" },
    },

    { name: "validators latest", method: "validators" },
    { name: "validators height 1", method: "validators", query: "height=1", params: { height: "1" } },
    { name: "validators page 2", method: "validators", query: "page=2", params: { page: "2" } },
    {
      name: "validators per_page 1",
      method: "validators",
      query: "per_page=1&page=1",
      params: { per_page: "1", page: "1" },
    },
    { name: "validators too high", method: "validators", query: `height=${FAR}`, params: { height: FAR } },

    {
      name: "tx by hash",
      method: "tx",
      query: `hash=0x${facts.txHash}`,
      params: { hash: Buffer.from(facts.txHash, "hex").toString("base64") },
    },
    {
      name: "tx by hash prove",
      method: "tx",
      query: `hash=0x${facts.txHash}&prove=true`,
      params: { hash: Buffer.from(facts.txHash, "hex").toString("base64"), prove: true },
    },
    {
      name: "tx missing",
      method: "tx",
      query: `hash=0x${"AB".repeat(32)}`,
      params: { hash: Buffer.alloc(32, 0xab).toString("base64") },
    },
    { name: "tx bad hash", method: "tx", query: "hash=0x12", params: { hash: "EiM=" } },
    { name: "tx no hash", method: "tx" },
    { name: "tx hash not hex", method: "tx", query: "hash=zz", params: { hash: "!!" } },

    {
      name: "tx_search by height",
      method: "tx_search",
      query: `query="tx.height=${h}"`,
      params: { query: `tx.height=${h}` },
    },
    {
      name: "tx_search by hash prove",
      method: "tx_search",
      query: `query="tx.hash='${facts.txHash}'"&prove=true`,
      params: { query: `tx.hash='${facts.txHash}'`, prove: true },
    },
    {
      name: "tx_search message.sender",
      method: "tx_search",
      query: `query="message.sender='${facts.address}'"&order_by="desc"&per_page=1`,
      params: { query: `message.sender='${facts.address}'`, order_by: "desc", per_page: "1" },
    },
    { name: "tx_search none", method: "tx_search", query: `query="tx.height=1"`, params: { query: "tx.height=1" } },
    {
      name: "tx_search page too far",
      method: "tx_search",
      query: `query="tx.height=${h}"&page=5`,
      params: { query: `tx.height=${h}`, page: "5" },
    },
    {
      name: "tx_search bad query",
      method: "tx_search",
      query: `query="tx.height=="`,
      params: { query: "tx.height==" },
    },
    { name: "tx_search no query", method: "tx_search" },
    {
      name: "tx_search bad order",
      method: "tx_search",
      query: `query="tx.height=${h}"&order_by="sideways"`,
      params: { query: `tx.height=${h}`, order_by: "sideways" },
    },

    // Garbage differs between the GET and POST forms: a refused tx leaves CometBFT's cache only once CheckTx
    // has answered, after broadcast_tx_async has returned, so the same bytes again could meet "already exists".
    { name: "broadcast_tx_sync garbage", method: "broadcast_tx_sync", query: "tx=0x010203", params: { tx: "AQIK" } },
    { name: "broadcast_tx_async garbage", method: "broadcast_tx_async", query: "tx=0x010204", params: { tx: "AQIL" } },
    {
      name: "broadcast_tx_commit garbage",
      method: "broadcast_tx_commit",
      query: "tx=0x010205",
      params: { tx: "AQIM" },
    },
    {
      name: "broadcast_tx_sync included tx",
      method: "broadcast_tx_sync",
      query: `tx=0x${txHex}`,
      params: { tx: facts.txBase64 },
    },
    {
      name: "broadcast_tx_commit included tx",
      method: "broadcast_tx_commit",
      query: `tx=0x${txHex}`,
      params: { tx: facts.txBase64 },
    },
    { name: "broadcast_tx_sync no tx", method: "broadcast_tx_sync" },
    { name: "broadcast_tx_sync empty tx", method: "broadcast_tx_sync", query: "tx=0x", params: { tx: "" } },

    { name: "POST not JSON", method: "", rawBody: "{nope", forms: ["post"] },
    { name: "POST no method", method: "", rawBody: `{"jsonrpc":"2.0","id":3}`, forms: ["post"] },
    { name: "POST wrong jsonrpc", method: "", rawBody: `{"jsonrpc":"1.0","id":3,"method":"health"}`, forms: ["post"] },
    { name: "POST no id (notification)", method: "", rawBody: `{"jsonrpc":"2.0","method":"health"}`, forms: ["post"] },
    { name: "POST string id", method: "", rawBody: `{"jsonrpc":"2.0","id":"x","method":"health"}`, forms: ["post"] },
    {
      name: "POST batch",
      method: "",
      rawBody: `[{"jsonrpc":"2.0","id":1,"method":"health"},{"jsonrpc":"2.0","id":2,"method":"abci_info"}]`,
      forms: ["post"],
    },
    { name: "POST empty batch", method: "", rawBody: "[]", forms: ["post"] },
    { name: "validators page 0", method: "validators", query: "page=0", params: { page: "0" } },
    { name: "validators per_page 0", method: "validators", query: "per_page=0", params: { per_page: "0" } },
    { name: "validators per_page 1000", method: "validators", query: "per_page=1000", params: { per_page: "1000" } },
    { name: "validators page -1", method: "validators", query: "page=-1", params: { page: "-1" } },
    {
      name: "tx_search page 0",
      method: "tx_search",
      query: `query="tx.height=${h}"&page=0`,
      params: { query: `tx.height=${h}`, page: "0" },
    },
    {
      name: "tx_search per_page 0",
      method: "tx_search",
      query: `query="tx.height=${h}"&per_page=0`,
      params: { query: `tx.height=${h}`, per_page: "0" },
    },
    {
      name: "tx_search no match page 2",
      method: "tx_search",
      query: `query="tx.height=1"&page=2`,
      params: { query: "tx.height=1", page: "2" },
    },
    { name: "blockchain min only", method: "blockchain", query: "minHeight=2", params: { minHeight: "2" } },
    { name: "blockchain max only", method: "blockchain", query: "maxHeight=2", params: { maxHeight: "2" } },
    { name: "header height 1", method: "header", query: "height=1", params: { height: "1" } },
    // Served beyond docs/CONTRACT.md §5's list.
    { name: "net_info", method: "net_info" },
    { name: "num_unconfirmed_txs", method: "num_unconfirmed_txs" },
    { name: "unconfirmed_txs", method: "unconfirmed_txs", query: "limit=5", params: { limit: "5" } },
    { name: "genesis_chunked 0", method: "genesis_chunked", query: "chunk=0", params: { chunk: "0" } },
    { name: "genesis_chunked 9", method: "genesis_chunked", query: "chunk=9", params: { chunk: "9" } },
    { name: "check_tx garbage", method: "check_tx", query: "tx=0x0102", params: { tx: "AQI=" } },
    {
      name: "block_by_hash unknown",
      method: "block_by_hash",
      query: `hash=0x${"AB".repeat(32)}`,
      params: { hash: Buffer.alloc(32, 0xab).toString("base64") },
    },
    {
      name: "header_by_hash unknown",
      method: "header_by_hash",
      query: `hash=0x${"AB".repeat(32)}`,
      params: { hash: "AB".repeat(32) },
    },
    {
      name: "block_search by height",
      method: "block_search",
      query: `query="block.height=${h}"`,
      params: { query: `block.height=${h}` },
    },
    {
      name: "block_search none",
      method: "block_search",
      query: `query="block.height>999999"`,
      params: { query: "block.height>999999" },
    },
    { name: "consensus_params", method: "consensus_params" },
    { name: "POST batch of a number", method: "", rawBody: "[1]", forms: ["post"] },
    {
      name: "POST fractional id",
      method: "",
      rawBody: `{"jsonrpc":"2.0","id":1.5,"method":"health"}`,
      forms: ["post"],
    },
    { name: "POST object id", method: "", rawBody: `{"jsonrpc":"2.0","id":{},"method":"health"}`, forms: ["post"] },
    {
      name: "POST params a string",
      method: "",
      rawBody: `{"jsonrpc":"2.0","id":5,"method":"block","params":"x"}`,
      forms: ["post"],
    },
    { name: "POST too many positional params", method: "block", params: ["1", "2"], forms: ["post"] },
    { name: "GET unknown extra param", method: "block", query: "height=1&foo=bar", forms: ["get"] },
    { name: "POST body a string", method: "", rawBody: `"health"`, forms: ["post"] },
    {
      name: "POST params null",
      method: "",
      rawBody: `{"jsonrpc":"2.0","id":4,"method":"status","params":null}`,
      forms: ["post"],
    },
    {
      name: "POST unknown param",
      method: "",
      rawBody: `{"jsonrpc":"2.0","id":4,"method":"block","params":{"heigth":"1"}}`,
      forms: ["post"],
    },
  ];
}
