// Errors of the snapshot subsystem: each message says what was wrong and what was expected.

import { currentBinaryName } from "../config/home.ts";
import { UserError } from "../errors/user-error.ts";

/** Base class: a snapshot problem caused by input, files or the state (never an internal fault). */
export class SnapshotError extends UserError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Bytes that are not a valid snapshot of the format they claim. */
export class SnapshotFormatError extends SnapshotError {}

/** A snapshot that is not in the local snapshot store. */
export class SnapshotNotFoundError extends SnapshotError {
  constructor(height: bigint, format: number) {
    super(`no snapshot at height ${height} in format ${format}; see \`${currentBinaryName()} snapshots list\``);
  }
}
