// A node killed inside the block of a large upgrade (issue 32, Steps A to C). The records chain's v2 rewrites
// 100,000 records in its upgrade handler, so the state store writes that version's history rows, updates' latest rows
// and tree pages while it stages, before the commit point (src/store/README.md, "A large version's memory"). The
// process is SIGKILLed after FinalizeBlock, before Commit: everything the version wrote early is on disk and no commit
// refers to it (the engine then hands the block to the app again, as CometBFT's handshake replays a block the app did
// not commit). Opened again, the store puts the lost version's latest rows back from history and deletes its pages;
// restarted on the same home with the same release, the app opens at the height before, the block comes out with the
// same app hash, and every record holds its rewritten value.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { readCommittedState, readCommittedStoreNames } from "../../src/store/committed-state.ts";
import { decodeLatestRow } from "../../src/store/flat-state.ts";
import { readU64, TABLE } from "../../src/store/keys.ts";
import { openLevelBackend } from "../../src/store/kv-backend.ts";
import { EARLY_WRITE_THRESHOLD, openMultiStore } from "../../src/store/multistore.ts";
import { PREFIX, STORE } from "../support/records-chain/chain.ts";
import { tempDir } from "../support/store/helpers.ts";
import { runCommand, startProcess, stopAll } from "./support/processes.ts";

/** The upgrade rewrites this many records in one block: the early way's threshold, so it is taken. */
const RECORDS = EARLY_WRITE_THRESHOLD;
const child = fileURLToPath(new URL("./support/large-upgrade-child.ts", import.meta.url));

let dir: Awaited<ReturnType<typeof tempDir>>;
let home: string;
/** The prepared chain's last block time (ms). */
let clock: number;

before(async () => {
  dir = await tempDir("chaind-large-upgrade-kill-");
  home = join(dir.path, "home");
  // v1 with the records, the plan at the upgrade height, run to the halt (as the stepped-migration bench prepares it).
  const prepared = await runCommand(process.execPath, [child, home, String(RECORDS), "prepare"], {
    timeoutMs: 300_000,
  });
  assert.equal(prepared.status, 0, prepared.stderr);
  clock = JSON.parse(prepared.stdout).clock;
});

after(async () => {
  await stopAll();
  await dir?.remove();
});

/**
 * The latest version, how many tree pages of later versions the home's state store holds, and how many latest rows
 * say a later version (read, not deleted or undone).
 */
async function afterLatest(): Promise<{ latest: number; pages: number; rows: number }> {
  const backend = await openLevelBackend(join(home, "data", "application.db"), { createIfMissing: false });
  try {
    const { latest } = await readCommittedState(backend);
    let pages = 0;
    const nodes = { gte: new Uint8Array([TABLE.node]), lt: new Uint8Array([TABLE.node + 1]) };
    for await (const [key] of backend.iterate(nodes)) if (readU64(key, 5) > latest) pages++;
    let rows = 0;
    const latestRows = { gte: new Uint8Array([TABLE.latest]), lt: new Uint8Array([TABLE.latest + 1]) };
    for await (const [, row] of backend.iterate(latestRows)) if (decodeLatestRow(row, true).version > latest) rows++;
    return { latest, pages, rows };
  } finally {
    await backend.close();
  }
}

test("SIGKILL between FinalizeBlock and Commit of a large upgrade: the restart reaches the same app hash", {
  timeout: 600_000,
}, async () => {
  const killed = startProcess("upgrade (killed)", process.execPath, [
    child,
    home,
    String(RECORDS),
    String(clock),
    "hold",
  ]);
  const [, height, appHash] = await killed.waitForOutput(/"finalized":"(\d+)","appHash":"([0-9A-F]{64})"/, 300_000);
  process.kill(killed.pid, "SIGKILL");
  assert.equal((await killed.exited).signal, "SIGKILL");
  const lost = await afterLatest();
  assert.equal(lost.latest, Number(height) - 1, "the upgrade's block was not committed");
  assert.ok(lost.pages > 0, "the version's pages were written before its commit point");
  assert.equal(lost.rows, RECORDS, "every rewritten record's latest row was written before the commit point");
  // Opening the home puts those rows back as the last commit left them (the restart below reads them first).
  const path = join(home, "data", "application.db");
  const opened = await openMultiStore({
    path,
    storeNames: await readCommittedStoreNames(path),
    createIfMissing: false,
  });
  assert.equal(opened.latestRowsUndoneAtOpen, RECORDS);
  await opened.close();
  assert.deepEqual(await afterLatest(), { latest: Number(height) - 1, pages: 0, rows: 0 });

  const restarted = await runCommand(process.execPath, [child, home, String(RECORDS), String(clock), "commit"], {
    timeoutMs: 300_000,
  });
  assert.equal(restarted.status, 0, restarted.stderr);
  const lines = restarted.stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));
  assert.deepEqual(lines[0], { opened: String(Number(height) - 1) });
  assert.deepEqual(lines[1], { finalized: height, appHash }, "the same app hash as the killed run's FinalizeBlock");
  assert.deepEqual(lines[2], { committed: height });
  assert.deepEqual(await afterLatest(), { latest: Number(height), pages: 0, rows: 0 });

  // Every record rewritten once, as the handler does it (upper-cased).
  const store = await openMultiStore({ path, storeNames: await readCommittedStoreNames(path), createIfMissing: false });
  try {
    const decoder = new TextDecoder();
    let count = 0;
    for await (const [key, value] of store.branch().store(STORE).iterate({ prefix: PREFIX })) {
      const index = new DataView(key.buffer, key.byteOffset).getUint32(1);
      assert.equal(decoder.decode(value), `RECORD ${index}`.padEnd(32, "."), `record ${index}`);
      count++;
    }
    assert.equal(count, RECORDS);
  } finally {
    await store.close();
  }
});
