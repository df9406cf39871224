// One-at-a-time access to the application, as CometBFT's in-process client serialises every ABCI call.

/** A FIFO async lock. */
export class Mutex {
  private tail: Promise<void> = Promise.resolve();

  /** Runs `fn` once every earlier holder has finished; the lock is released even if `fn` throws. */
  run<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.tail.then(fn);
    this.tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }
}
