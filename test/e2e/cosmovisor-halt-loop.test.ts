// The halt moment under the real cosmovisor v1.5, in a loop (issue 13). cosmovisor polls upgrade-info.json and,
// separately, looks at it again when its child exits with an error; when both look at once (a poll tick between the
// write and the exit, and a slow `<daemon> status`) it can miss the upgrade and exit 1. chaind closes that from its
// side: under a supervisor the halted node stays up until it is stopped (src/node/supervised-halt.ts), so only the
// poll ever sees the plan. A fake daemon (a shell script) does exactly what the node does at the halt — write the
// file atomically, then wait for SIGTERM/SIGINT (bounded) and exit 20 — with a deliberately slow `status` (1 s) to
// widen the window; it must switch on 20 of 20 halts. The old behaviour (exit 0.3 s after the write) runs too, for
// the figures only: whether it misses depends on timing, so it is printed, not asserted.
import assert from "node:assert/strict";
import { chmod, mkdir, mkdtemp, readlink, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { cosmovisorBinary } from "./support/cosmovisor.ts";
import { runCommand } from "./support/processes.ts";

const COSMOVISOR = cosmovisorBinary();
const ROUNDS = 20;
const OLD_BEHAVIOUR_ROUNDS = 5;

let work: string;
before(async () => {
  if (COSMOVISOR !== undefined) work = await mkdtemp(join(tmpdir(), "chaind-cosmovisor-loop-"));
});
after(async () => {
  if (work !== undefined) await rm(work, { recursive: true, force: true });
});

/** The fake v1 daemon: `status` answers slowly; `start` halts the way chaind does (`wait`) or did (`exit`). */
function fakeDaemon(halt: "wait" | "exit"): string {
  const afterWrite =
    halt === "wait"
      ? // Stay up until the supervisor stops it (bounded at 60 s, like chaind's max(30 s, 20 polls) for 3 s polls).
        "trap 'exit 20' TERM INT\ni=0\nwhile [ $i -lt 1200 ]; do sleep 0.05; i=$((i+1)); done\nexit 20"
      : "sleep 0.3\nexit 20";
  return `#!/bin/sh
case "$1" in
  status) sleep 1; echo '{"sync_info":{"latest_block_height":"9"}}'; exit 0 ;;
  version) echo fake; exit 0 ;;
  pre-upgrade) exit 0 ;;
esac
printf '%s' '{"name":"v2","time":"0001-01-01T00:00:00Z","height":10}' > "$DAEMON_HOME/data/upgrade-info.json.tmp"
mv "$DAEMON_HOME/data/upgrade-info.json.tmp" "$DAEMON_HOME/data/upgrade-info.json"
${afterWrite}
`;
}

/** One halt under cosmovisor: true when it switched `current` to upgrades/v2. */
async function oneHalt(halt: "wait" | "exit", round: number): Promise<{ switched: boolean; log: string }> {
  const home = join(work, `${halt}-${round}`);
  await mkdir(join(home, "data"), { recursive: true });
  await mkdir(join(home, "build"), { recursive: true });
  const v1 = join(home, "build", "v1");
  const v2 = join(home, "build", "v2");
  await writeFile(v1, fakeDaemon(halt));
  await writeFile(v2, "#!/bin/sh\nexit 0\n");
  await chmod(v1, 0o755);
  await chmod(v2, 0o755);
  const env = {
    ...process.env,
    DAEMON_HOME: home,
    DAEMON_NAME: "chaind",
    DAEMON_POLL_INTERVAL: "300ms",
    DAEMON_RESTART_AFTER_UPGRADE: "false",
    UNSAFE_SKIP_BACKUP: "true",
  };
  const cosmovisor = COSMOVISOR as string;
  for (const args of [
    ["init", v1],
    ["add-upgrade", "v2", v2],
  ]) {
    const setup = await runCommand(cosmovisor, args, { cwd: home, env });
    assert.equal(setup.status, 0, setup.stderr);
  }
  const run = await runCommand(cosmovisor, ["run", "start"], { cwd: home, env, timeoutMs: 120_000 });
  const target = await readlink(join(home, "cosmovisor", "current"));
  return { switched: /upgrades\/v2$/.test(target), log: `${run.stdout}\n${run.stderr}` };
}

test(`cosmovisor v1.5 switches on ${ROUNDS} of ${ROUNDS} halts of a node that waits to be stopped`, {
  skip: COSMOVISOR === undefined ? "cosmovisor is not installed (run .ci/install-tools)" : false,
}, async (t) => {
  let switched = 0;
  const misses: string[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const result = await oneHalt("wait", round);
    if (result.switched) switched++;
    else misses.push(result.log.slice(-2000));
  }
  let oldSwitched = 0;
  for (let round = 0; round < OLD_BEHAVIOUR_ROUNDS; round++) {
    if ((await oneHalt("exit", round)).switched) oldSwitched++;
  }
  t.diagnostic(`halt loop (cosmovisor v1.5, poll 300ms, status 1 s): node waits to be stopped: ${switched}/${ROUNDS}`);
  t.diagnostic(
    `halt loop, for comparison: node exits 0.3 s after the write: ${oldSwitched}/${OLD_BEHAVIOUR_ROUNDS} (timing-dependent; not asserted)`,
  );
  assert.equal(switched, ROUNDS, `missed halts:\n${misses.join("\n---\n")}`);
});
