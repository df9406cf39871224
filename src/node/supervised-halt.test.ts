import assert from "node:assert/strict";
import { test } from "node:test";
import { supervisedHaltWait } from "./supervised-halt.ts";

test("supervisedHaltWait: only under a supervisor, bounded by max(30 s, 20 polls), and can be turned off", () => {
  assert.equal(supervisedHaltWait({}), undefined);
  assert.equal(supervisedHaltWait({ DAEMON_NAME: "" }), undefined);
  assert.deepEqual(supervisedHaltWait({ DAEMON_NAME: "chaind" }), { maxMs: 30_000, supervisor: "DAEMON_NAME" });
  assert.deepEqual(supervisedHaltWait({ DAEMON_HOME: "/h", DAEMON_POLL_INTERVAL: "5s" }), {
    maxMs: 100_000,
    supervisor: "DAEMON_HOME",
  });
  assert.equal(supervisedHaltWait({ DAEMON_NAME: "chaind", DAEMON_POLL_INTERVAL: "1m30s" })?.maxMs, 1_800_000);
  // An interval cosmovisor itself would refuse falls back to its default of 300 ms.
  assert.equal(supervisedHaltWait({ DAEMON_NAME: "chaind", DAEMON_POLL_INTERVAL: "600" })?.maxMs, 30_000);
  assert.equal(supervisedHaltWait({ DAEMON_NAME: "chaind", CHAIND_HALT_WAIT: "false" }), undefined);
});
