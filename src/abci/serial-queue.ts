// One-at-a-time execution. The ABCI server routes every application call through one queue shared by all
// four connections, as CometBFT's own socket server does with a global lock: the consensus and mempool
// connections are busy at the same time, and the App is not written for interleaved calls.

/** A FIFO async queue: each task starts once every earlier task has settled. */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();

  /** Runs `task` after all earlier tasks; its result or error is returned, and never blocks later tasks. */
  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.tail.then(task);
    this.tail = result.catch(() => undefined);
    return result;
  }
}
