// A full node (not a validator) for the testnet that carries only the newest release and runs in replay mode
// (app.toml `replay-releases = true`): it joins from genesis by CometBFT block sync, with the validators as its
// persistent peers, and must replay the chain's upgrades in process to keep their app hashes.
import { copyFile, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  allocatePorts,
  endpoints,
  type NodePorts,
  startJoiningNode,
  type Testnet,
  type TestnetNode,
} from "../../../scripts/testnet/index.ts";
import { homePaths, loadNodeKey, setTomlValues } from "../../../src/config/index.ts";
import { chaindCli } from "./chain-client.ts";

/**
 * Sets up `<net.dir>/replay-node`, starts its chaind (`start --abci`, this source tree as `release`, not under
 * chainvisor) and its CometBFT, and adds it to `net.nodes` so that stopTestnet stops it too.
 */
export async function startReplayFullNode(net: Testnet, release: string): Promise<TestnetNode> {
  const [ports] = await allocatePorts(1);
  const moniker = "replay-node";
  const home = join(net.dir, moniker);
  await chaindCli(["init", moniker, "--chain-id", net.chainId, "--home", home]);
  const paths = homePaths(home);
  const [first] = net.nodes;
  await copyFile(homePaths(first.home).genesis, paths.genesis);
  // Its ports go into config.toml and app.toml here, and again if one was taken before its processes bound it.
  const peers = net.nodes.map((n) => `${n.nodeId}@127.0.0.1:${n.ports.p2p}`).join(",");
  const writePorts = async (ports: NodePorts) => {
    const loopback = (port: number) => `tcp://127.0.0.1:${port}`;
    await writeFile(
      paths.configToml,
      setTomlValues(
        await readFile(paths.configToml, "utf8"),
        {
          moniker,
          proxy_app: loopback(ports.abci),
          "rpc.laddr": loopback(ports.rpc),
          "rpc.pprof_laddr": "",
          "p2p.laddr": loopback(ports.p2p),
          "p2p.external_address": `127.0.0.1:${ports.p2p}`,
          "p2p.persistent_peers": peers,
          "p2p.addr_book_strict": false,
          "p2p.allow_duplicate_ip": true,
          "p2p.pex": false,
          "instrumentation.prometheus": false,
        },
        paths.configToml,
      ),
    );
    await writeFile(
      paths.appToml,
      setTomlValues(
        await readFile(paths.appToml, "utf8"),
        {
          "replay-releases": true,
          "api.enable": true,
          "api.address": loopback(ports.api),
          "grpc.enable": true,
          "grpc.address": `127.0.0.1:${ports.grpc}`,
        },
        paths.appToml,
      ),
    );
  };
  await writePorts(ports);
  const node: TestnetNode = {
    index: net.nodes.length,
    moniker,
    home,
    nodeId: (await loadNodeKey(paths.nodeKey)).id,
    keyName: "",
    address: "",
    operator: "",
    mnemonic: "",
    ports,
    ...endpoints(ports),
  };
  net.nodes.push(node);
  // Its chaind runs this tree directly as `release`, not under chainvisor.
  await startJoiningNode({ ...net, chainvisor: undefined }, node, writePorts, { CHAIND_RELEASE: release });
  return node;
}
