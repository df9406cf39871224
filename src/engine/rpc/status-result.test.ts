import assert from "node:assert/strict";
import { test } from "node:test";
import { advertisedP2p } from "./status-result.ts";

// What a real CometBFT v0.38.25 reported in node_info (scripts/rpc-compare.ts), for these config.toml settings.
test("node_info's listen_addr and channels follow p2p.external_address and p2p.pex, as CometBFT's do", () => {
  const laddr = { address: "tcp://0.0.0.0:26656" };
  assert.deepEqual(advertisedP2p({ externalAddress: "", laddr, pex: true }), {
    listenAddr: "tcp://0.0.0.0:26656",
    channels: "40202122233038606100",
  });
  assert.deepEqual(advertisedP2p({ externalAddress: "127.0.0.1:40487", laddr, pex: false }), {
    listenAddr: "127.0.0.1:40487",
    channels: "402021222330386061",
  });
});
