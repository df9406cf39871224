// The vote extensions' enable height as the latest committed state records it, read once per commit rather than in
// each of PrepareProposal, ProcessProposal and FinalizeBlock (a context and a store read each, every block). The
// value is kept with the commit it was read at, version and app hash: the app hash commits to the whole state, so a
// commit with the same version and app hash holds the same enable height, and any other commit (the next block, an
// upgrade that turned extensions on, a rollback or a restored snapshot at the same version) reads it again.
import type { CommitInfo } from "../store/types.ts";

/** One committed state's enable height, remembered until the latest commit is another. */
export class CommittedEnableHeight {
  private known: { version: bigint; appHash: Uint8Array; enableHeight: bigint } | undefined;

  /**
   * The enable height at `commit`: remembered when `commit` is the one last read, else `read()` (which must read the
   * state of `commit`: the ABCI consensus methods that call this run one at a time, so no commit lands in between).
   */
  async at(commit: CommitInfo, read: () => Promise<bigint>): Promise<bigint> {
    const known = this.known;
    if (
      known !== undefined &&
      known.version === commit.version &&
      Buffer.compare(known.appHash, commit.appHash) === 0
    ) {
      return known.enableHeight;
    }
    const enableHeight = await read();
    this.known = { version: commit.version, appHash: commit.appHash.slice(), enableHeight };
    return enableHeight;
  }
}
