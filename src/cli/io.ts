// Where `chaind`'s commands write. Its own file so that command files and the root that lists them
// need not import each other.

/** Where commands write; tests pass their own buffers. */
export interface CliIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}
