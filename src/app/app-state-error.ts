// The error of an app called out of ABCI order; its own file so the app's helpers can raise it too.

/** Thrown for calls out of ABCI order (FinalizeBlock before load, Commit with nothing staged, ...). */
export class AppStateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "AppStateError";
  }
}
