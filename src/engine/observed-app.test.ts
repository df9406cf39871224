// The ABCI observer the node puts around the App when metrics are on: every call is forwarded unchanged and
// reported — the optional methods too, so turning metrics on never changes what the node does (ExtendVote and
// VerifyVoteExtension were once dropped: a node with metrics on never signalled upgrade readiness).
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { create } from "@bufbuild/protobuf";
import { KvApp } from "../../test/support/engine/kv-app.ts";
import {
  CheckTxType,
  RequestCheckTxSchema,
  RequestCommitSchema,
  RequestExtendVoteSchema,
  RequestVerifyVoteExtensionSchema,
  type ResponseCheckTx,
  ResponseCheckTxSchema,
  type ResponseExtendVote,
  ResponseExtendVoteSchema,
  type ResponseVerifyVoteExtension,
  ResponseVerifyVoteExtension_VerifyStatus,
  ResponseVerifyVoteExtensionSchema,
} from "../gen/tendermint/abci/types_pb.js";
import type { AbciApp } from "./abci-app.ts";
import { type AbciMethodName, type AbciObserver, observeAbci } from "./observed-app.ts";

const enc = (text: string) => new TextEncoder().encode(text);

/** The KV app with vote extensions and a precheck that refuses anything without "=". */
class ExtendingKvApp extends KvApp {
  async extendVote(): Promise<ResponseExtendVote> {
    return create(ResponseExtendVoteSchema, { voteExtension: enc("ready") });
  }
  async verifyVoteExtension(): Promise<ResponseVerifyVoteExtension> {
    return create(ResponseVerifyVoteExtensionSchema, { status: ResponseVerifyVoteExtension_VerifyStatus.ACCEPT });
  }
  precheckTx(tx: Uint8Array): ResponseCheckTx | undefined {
    return Buffer.from(tx).includes(0x3d) ? undefined : create(ResponseCheckTxSchema, { code: 2, log: "no =" });
  }
}

/** An observer that records what it hears. */
function recorder() {
  const heard = { timings: [] as AbciMethodName[], checks: [] as [number, boolean][], failed: [] as AbciMethodName[] };
  const observer: AbciObserver = {
    timing: (method, seconds) => {
      assert.ok(seconds >= 0);
      heard.timings.push(method);
    },
    checkTx: (response, recheck) => heard.checks.push([response.code, recheck]),
    failed: (method) => heard.failed.push(method),
  };
  return { heard, observer };
}

describe("observeAbci", () => {
  test("without observers the App itself is driven", () => {
    const app = new KvApp();
    assert.equal(observeAbci(app, []), app);
  });

  test("forwards and times ExtendVote and VerifyVoteExtension, and leaves them out for an App without them", async () => {
    const { heard, observer } = recorder();
    const observed = observeAbci(new ExtendingKvApp(), [observer]);
    assert.ok(observed.extendVote !== undefined && observed.verifyVoteExtension !== undefined);
    const extended = await observed.extendVote(create(RequestExtendVoteSchema, { height: 2n }));
    assert.deepEqual(extended.voteExtension, enc("ready"));
    const verified = await observed.verifyVoteExtension(
      create(RequestVerifyVoteExtensionSchema, { voteExtension: enc("ready") }),
    );
    assert.equal(verified.status, ResponseVerifyVoteExtension_VerifyStatus.ACCEPT);
    assert.deepEqual(heard.timings, ["extend_vote", "verify_vote_extension"]);

    const plain = observeAbci(new KvApp(), [observer]);
    assert.equal(plain.extendVote, undefined);
    assert.equal(plain.verifyVoteExtension, undefined);
  });

  test("CheckTx: answers, rechecks and the precheck's refusals reach the observer", async () => {
    const { heard, observer } = recorder();
    const app: AbciApp = new ExtendingKvApp();
    const observed = observeAbci(app, [observer]);
    const answer = await observed.checkTx(create(RequestCheckTxSchema, { tx: enc("a=1") }), { events: false });
    assert.equal(answer.code, 0);
    await observed.checkTx(create(RequestCheckTxSchema, { tx: enc("a=1"), type: CheckTxType.RECHECK }));
    assert.equal(observed.precheckTx?.(enc("garbage"))?.code, 2);
    assert.equal(observed.precheckTx?.(enc("b=2")), undefined);
    assert.deepEqual(heard.checks, [
      [0, false],
      [0, true],
      [2, false],
    ]);
    assert.deepEqual(heard.timings, ["check_tx", "check_tx"]);
  });

  test("a call that throws is timed, reported as failed and rethrown", async () => {
    const { heard, observer } = recorder();
    // The KV app refuses a Commit with no block finalized before it.
    const observed = observeAbci(new KvApp(), [observer]);
    await assert.rejects(observed.commit(create(RequestCommitSchema)), /commit without finalizeBlock/);
    assert.deepEqual(heard.timings, ["commit"]);
    assert.deepEqual(heard.failed, ["commit"]);
  });
});
