// <dir>/pids.json: written after every start and stop (one write at a time), read to refuse starting a testnet
// that still runs and by `stop --dir` to stop the processes it records.
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { writeFileAtomic } from "../../src/config/atomic-file.ts";
import { foreignProcess, ownedPid, stopProcess } from "./processes.ts";
import { type NodeProcess, PIDS_FILE, type PidsFile, type Testnet, TestnetError } from "./types.ts";

// One write at a time per testnet, each taking the state as it is when its turn comes: processes start in
// parallel, and interleaved writes of one file would leave it torn.
const pidWrites = new WeakMap<Testnet, Promise<void>>();
/** Records the live processes of `net` in `<dir>/pids.json`, after any write already under way. */
export function writePids(net: Testnet): Promise<void> {
  const pidOf = (p: NodeProcess | undefined) => (p === undefined || p.hasExited() ? null : p.pid);
  const write = async () => {
    const pids: PidsFile = {
      nodes: net.nodes.map((n) => ({
        moniker: n.moniker,
        home: n.home,
        chaind: pidOf(n.chaind),
        cometbft: pidOf(n.cometbft),
      })),
    };
    await writeFileAtomic(join(net.dir, PIDS_FILE), `${JSON.stringify(pids, null, 2)}\n`);
  };
  const next = (pidWrites.get(net) ?? Promise.resolve()).then(write);
  pidWrites.set(
    net,
    next.catch(() => {}),
  );
  return next;
}

/** pids.json parsed and checked for the shape it must have; a bad file says how to recover. */
async function readPids(file: string): Promise<PidsFile> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(file, "utf8"));
  } catch (cause) {
    throw new TestnetError(`${file} is unreadable: make sure none of its processes runs, then delete it`, { cause });
  }
  const nodes = (parsed as Partial<PidsFile> | null)?.nodes;
  if (!Array.isArray(nodes) || nodes.some((n) => typeof n?.home !== "string")) {
    throw new TestnetError(`${file} does not hold {"nodes":[{"home":...,"chaind":pid,"cometbft":pid}]}`);
  }
  return parsed as PidsFile;
}

/** Refuses to start a testnet whose recorded processes still run. */
export async function refuseIfRunning(dir: string): Promise<void> {
  const file = join(dir, PIDS_FILE);
  if (!existsSync(file)) return;
  const pids = await readPids(file);
  const running = pids.nodes.filter(
    (n) => ownedPid(n.chaind, n.home) !== undefined || ownedPid(n.cometbft, n.home) !== undefined,
  );
  if (running.length > 0) {
    throw new TestnetError(
      `${dir} is running already (${running.map((n) => n.moniker).join(", ")}): stop it first with \`node scripts/testnet.ts stop --dir ${dir}\``,
    );
  }
}

/** `stop --dir`: stops the processes recorded in `<dir>/pids.json`, CometBFT first. Returns how many it stopped. */
export async function stopTestnetDir(dir: string, options: { graceMs?: number } = {}): Promise<number> {
  const file = join(resolve(dir), PIDS_FILE);
  if (!existsSync(file)) throw new TestnetError(`${file} not found: was a testnet started in ${dir}?`);
  const pids = await readPids(file);
  const comets: NodeProcess[] = [];
  const chainds: NodeProcess[] = [];
  for (const node of pids.nodes) {
    const comet = ownedPid(node.cometbft, node.home);
    if (comet !== undefined) comets.push(foreignProcess("cometbft", comet, join(node.home, "cometbft.log")));
    const app = ownedPid(node.chaind, node.home);
    if (app !== undefined) chainds.push(foreignProcess("chaind", app, join(node.home, "chaind.log")));
  }
  await Promise.all(comets.map((p) => stopProcess(p, options)));
  await Promise.all(chainds.map((p) => stopProcess(p, options)));
  const cleared: PidsFile = { nodes: pids.nodes.map((n) => ({ ...n, chaind: null, cometbft: null })) };
  await writeFileAtomic(file, `${JSON.stringify(cleared, null, 2)}\n`);
  return comets.length + chainds.length;
}
