// Crash safety: a child process commits versions in a loop and is killed with SIGKILL at random
// moments. After every kill the store must open at a whole version — the app hash and every key
// exactly as an in-memory replica computes them for that version — never at something in between.
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { CRASH_PRUNING, CRASH_STORES, crashWorkload } from "../../test/support/store/crash-workload.ts";
import { tempDir } from "../../test/support/store/helpers.ts";
import { toHex } from "../bytes/hex.ts";
import { readU64, TABLE } from "./keys.ts";
import { partialVersionKey } from "./lost-latest-rows.ts";
import { type MultiStore, openMultiStore } from "./multistore.ts";
import { verifyStoreProof } from "./proofs.ts";
import type { ReadableKVStore } from "./types.ts";

const child = fileURLToPath(new URL("../../test/support/store/test-child.ts", import.meta.url));
const KILLS = 24;
const encoder = new TextEncoder();

/**
 * Follows the writer's output: resolves once it has committed a version above `above` (it prints
 * "committed <v>" after each commit), so every kill lands after real progress however slow the
 * machine is. Returns a getter for the last version it reported.
 */
async function waitForProgress(
  proc: ChildProcess,
  above: bigint,
  onStreamed: (count: number) => void = () => {},
): Promise<() => bigint> {
  let reported = 0n;
  let pending = "";
  let resolveProgress: () => void = () => {};
  const progressed = new Promise<void>((resolve) => {
    resolveProgress = resolve;
  });
  const exited = once(proc, "exit").then(() => {
    throw new Error(`the writer exited before committing above version ${above} (exit ${proc.exitCode})`);
  });
  proc.stdout?.on("data", (chunk: Buffer) => {
    pending += chunk.toString();
    const lines = pending.split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) {
      const match = /^committed (\d+)$/.exec(line);
      if (match !== null) reported = BigInt(match[1]);
      const streamed = /^streamed (\d+)$/.exec(line);
      if (streamed !== null) onStreamed(Number(streamed[1]));
    }
    if (reported > above) resolveProgress();
  });
  await Promise.race([progressed, exited]);
  exited.catch(() => {});
  return () => reported;
}

async function dump(store: ReadableKVStore): Promise<string[]> {
  const out: string[] = [];
  for await (const [k, v] of store.iterate()) out.push(`${toHex(k)}=${toHex(v)}`);
  return out;
}

/** Tree pages of versions after `latest` (a large version's early pages that never became the latest). */
async function pagesAfter(store: MultiStore, latest: bigint): Promise<number> {
  let n = 0;
  const range = { gte: new Uint8Array([TABLE.node]), lt: new Uint8Array([TABLE.node + 1]) };
  for await (const [k] of store.backend.iterate(range)) if (readU64(k, 5) > Number(latest)) n++;
  return n;
}

async function sameState(actual: MultiStore, replica: MultiStore, version: bigint): Promise<void> {
  const a = await actual.view(version);
  const r = await replica.view(version);
  assert.deepEqual(a.appHash, r.appHash, `app hash at ${version}`);
  for (const name of CRASH_STORES) {
    assert.deepEqual(await dump(a.store(name)), await dump(r.store(name)), `store ${name} at ${version}`);
  }
  // The trees too (a fresh process reads their nodes from the pages): proofs of present and absent keys.
  for (const key of ["acct-0000", "acct-0321", "acct-0599", `temp-${version}`, "absent"]) {
    const proof = await actual.prove("bank", encoder.encode(key), version);
    assert.ok(verifyStoreProof(proof, a.appHash as Uint8Array), `proof of ${key} at ${version}`);
  }
}

describe("crash safety", () => {
  test(`SIGKILL during commits ${KILLS} times: every restart is at a whole version`, async (t) => {
    const dir = await tempDir("chaind-crash-");
    const replica = await openMultiStore({ backend: "memory", storeNames: CRASH_STORES, pruning: CRASH_PRUNING });
    let last = 0n;
    let advanced = 0;
    let rebuilt = 0;
    let lostPages = 0;
    let undoneRows = 0;
    let streamed = 0;
    try {
      for (let kill = 0; kill < KILLS; kill++) {
        // One writer in three writes each version's pages in small parts (a large version's way after its commit), one
        // in three writes history rows and pages in small parts at stage (a large version's early parts), so kills
        // land between parts too.
        const variant = [[], ["parts"], ["early"]][kill % 3];
        const args = [child, "writer", dir.path, ...variant];
        const writer = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] });
        let streamedHere = 0;
        const reported = await waitForProgress(writer, last, (count) => {
          streamedHere = count;
        });
        // Then a random moment, so kills land anywhere in a commit or a pruning batch.
        // (Wider for the early writer, whose stages with their synced parts are most of its time.)
        await sleep(Math.floor(Math.random() * (variant[0] === "early" ? 150 : 60)));
        writer.kill("SIGKILL");
        if (writer.exitCode === null && writer.signalCode === null) await once(writer, "exit");
        assert.equal(writer.signalCode, "SIGKILL", "the writer was killed, it did not stop on its own");
        streamed += streamedHere;

        const store = await openMultiStore({ path: dir.path, storeNames: CRASH_STORES, pruning: CRASH_PRUNING });
        try {
          const { version } = store.lastCommit();
          if (store.pagesRebuiltAtOpen.length > 0) rebuilt++;
          if (store.lostPagesDeletedAtOpen > 0) lostPages++;
          if (store.latestRowsUndoneAtOpen > 0) undoneRows++;
          // Updates' latest rows of a version that never became the latest are put back (Step B), the marker gone.
          assert.equal(store.backend.getSync(partialVersionKey()), undefined, "the partial version's marker is left");
          // Pages of a version that never became the latest are gone (pruning would never free them).
          assert.equal(await pagesAfter(store, version), 0, `pages after version ${version}`);
          assert.ok(version >= last, `version went back from ${last} to ${version}`);
          // A commit the writer reported was synced before it said so: it survives the kill.
          assert.ok(
            version >= reported(),
            `the writer reported version ${reported()} but the store opened at ${version}`,
          );
          if (version > last) advanced++;
          last = version;
          while (replica.lastCommit().version < version) {
            const block = replica.branch();
            crashWorkload(Number(replica.lastCommit().version) + 1, block);
            await replica.stage(block);
            await replica.commit();
          }
          assert.equal(
            toHex(store.lastCommit().appHash),
            toHex(replica.lastCommit().appHash),
            `app hash at ${version}`,
          );
          if (version === 0n) continue;
          assert.equal(store.earliestVersion(), replica.earliestVersion());
          await sameState(store, replica, version);
          await sameState(store, replica, store.earliestVersion());
          // Every few rounds let leftover pruning finish, then check again.
          if (kill % 4 === 3) {
            await store.idle();
            await sameState(store, replica, store.earliestVersion());
          }
        } finally {
          await store.close();
        }
      }
      // Every round waited for a commit above the last version, so every round advanced.
      assert.equal(advanced, KILLS, `the writer made progress between kills (${advanced} of ${KILLS})`);
      // How many kills landed between a commit's two writes (random; the writer's page write is slowed).
      t.diagnostic(`${rebuilt} of ${KILLS} restarts rebuilt the latest version's tree pages`);
      t.diagnostic(`${lostPages} of ${KILLS} restarts deleted early pages of a version after the latest`);
      t.diagnostic(`${undoneRows} of ${KILLS} restarts put back early latest rows of a version after the latest`);
      t.diagnostic(
        `${streamed} versions the early writer committed with their tree streamed (Step C); kills land in such stages too`,
      );
    } finally {
      await replica.close();
      await dir.remove();
    }
  });
});
