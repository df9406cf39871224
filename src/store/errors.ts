// Errors of the state store. Each has a stable `code` callers can branch on, a short message
// that says what was wrong and what to do, the details as fields, and a `cause` chain.

import { currentBinaryName } from "../config/home.ts";
import { UserError } from "../errors/user-error.ts";

/**
 * Base class of the errors the store raises about the data it was given or asked for (a pruned or future
 * version, a missing, locked or corrupt data directory, store upgrades that do not fit the state): user
 * errors, printed by the CLI as one line.
 */
export class StoreError extends UserError {
  /** Stable identifier, e.g. "STORE_VERSION_PRUNED". */
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
  }
}

/** A read or proof at a version that pruning has removed. */
export class PrunedVersionError extends StoreError {
  readonly version: bigint;
  readonly earliest: bigint;
  readonly latest: bigint;

  constructor(version: bigint, earliest: bigint, latest: bigint) {
    super(
      "STORE_VERSION_PRUNED",
      `failed to load state at height ${version}; version pruned (earliest available height: ${earliest}, latest height: ${latest})`,
    );
    this.version = version;
    this.earliest = earliest;
    this.latest = latest;
  }
}

/** A read or proof at a version above the latest committed one. */
export class FutureVersionError extends StoreError {
  readonly version: bigint;
  readonly latest: bigint;

  constructor(version: bigint, latest: bigint) {
    super(
      "STORE_VERSION_IN_FUTURE",
      `cannot query with height in the future; please provide a valid height (latest height: ${latest})`,
    );
    this.version = version;
    this.latest = latest;
  }
}

/** A negative or otherwise unusable version number. */
export class InvalidVersionError extends StoreError {
  readonly version: bigint;

  constructor(version: bigint) {
    super("STORE_VERSION_INVALID", `invalid height ${version}: expected a non-negative integer (0 means latest)`);
    this.version = version;
  }
}

/** A store name that is not mounted (or not present at the requested version). */
export class StoreNotFoundError extends StoreError {
  readonly storeName: string;
  readonly available: string[];

  constructor(storeName: string, available: string[], detail?: string) {
    super(
      "STORE_NOT_FOUND",
      detail ??
        `store "${storeName}" not found; the stores are: ${available.length > 0 ? available.join(", ") : "(none)"}`,
    );
    this.storeName = storeName;
    this.available = available;
  }
}

/** The data directory does not exist and the caller asked not to create it. */
export class DataDirectoryMissingError extends StoreError {
  readonly path: string;

  constructor(path: string, options?: { cause?: unknown }) {
    super(
      "STORE_DIR_MISSING",
      `state store directory ${path} does not exist; initialise the node first (${currentBinaryName()} init) or check --home`,
      options,
    );
    this.path = path;
  }
}

/** Another process (or another open handle in this one) holds the LevelDB lock. */
export class DataDirectoryLockedError extends StoreError {
  readonly path: string;

  constructor(path: string, options?: { cause?: unknown }) {
    super(
      "STORE_DIR_LOCKED",
      `state store ${path} is locked by another process; stop the other ${currentBinaryName()} (or chainvisor child) using this home, then retry`,
      options,
    );
    this.path = path;
  }
}

/** The data directory exists but cannot be read as a chaind state store. */
export class DataDirectoryCorruptError extends StoreError {
  readonly path: string;

  constructor(path: string, reason: string, options?: { cause?: unknown }) {
    super(
      "STORE_DIR_CORRUPT",
      `state store ${path} is corrupt or not a ${currentBinaryName()} state store (${reason}); restore it from a backup or snapshot, or remove it and sync again`,
      options,
    );
    this.path = path;
  }
}

/**
 * The file system refused LevelDB an operation while it opened the store: the disk is full, the files are not
 * writable, the file system is read-only, or the process ran out of file handles. That says nothing about the
 * store's data, so the message does not call it corrupt nor advise removing it (as {@link DataDirectoryCorruptError}
 * does): the operator fixes the machine and starts again.
 */
export class DataDirectoryUnavailableError extends StoreError {
  readonly path: string;

  constructor(path: string, reason: string, options?: { cause?: unknown }) {
    super(
      "STORE_DIR_UNAVAILABLE",
      `state store ${path} cannot be opened: the file system refused it (${reason}); nothing says the store is damaged: free disk space, or fix the permissions or mount, then start again`,
      options,
    );
    this.path = path;
  }
}

/**
 * True when LevelDB's error text is the operating system refusing a file operation (ENOSPC, EACCES, EROFS,
 * EMFILE/ENFILE, EDQUOT as strerror words them) rather than LevelDB finding damaged data.
 */
export function isFileSystemRefusal(message: string): boolean {
  return /No space left on device|Permission denied|Read-only file system|Too many open files|Disk quota exceeded/.test(
    message,
  );
}

/**
 * A LevelDB directory that holds files but no `CURRENT` (the file naming the live MANIFEST): it cannot be opened as
 * it is, and opening it with create-if-missing would make LevelDB start an empty database there and delete every
 * table file as obsolete. Refused before LevelDB sees the directory, so nothing in it is changed. Raised for the
 * state store and the block store alike; `store` names it relative to the home (`data/application.db`).
 */
export class NotALevelStoreError extends StoreError {
  /** The directory as given (may be absolute). */
  readonly path: string;
  /** Its last two path components, e.g. `data/application.db`, for messages. */
  readonly store: string;
  /** How many entries the directory holds. */
  readonly entries: number;

  constructor(path: string, store: string, entries: number) {
    super(
      "STORE_NOT_LEVELDB",
      `${store} holds ${entries} files but no CURRENT file, so it is not a LevelDB store that can be opened; nothing in it was changed. Restore ${store} from a backup or snapshot, or keep a copy of the directory and rebuild it in place with \`${currentBinaryName()} repair-store <home>/${store}\` (LevelDB's repair)`,
    );
    this.path = path;
    this.store = store;
    this.entries = entries;
  }
}

/**
 * The store was used out of order (e.g. commit without stage) or after close. A bug in the caller, not
 * a problem with the user's data, so unlike the other store errors it is not a UserError: the CLI prints
 * its stack.
 */
export class StoreUsageError extends Error {
  /** Always "STORE_USAGE". */
  readonly code = "STORE_USAGE";

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "StoreUsageError";
  }
}

/**
 * A commit past MAX_VERSION (src/store/version-limit.ts): the chain has reached the last height the
 * store can number. Not a bug, so a user error: the node stops with this one line.
 */
export class VersionLimitError extends StoreError {
  readonly latest: bigint;

  constructor(latest: bigint, limit: bigint) {
    super(
      "STORE_VERSION_LIMIT",
      `the state store numbers versions (block heights) up to ${limit} (2^53 − 1) and holds version ${latest}: no later block can be committed`,
    );
    this.latest = latest;
  }
}

/** Store upgrades that do not fit the stores on disk or the stores the app declares. */
export class StoreUpgradeError extends StoreError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("STORE_UPGRADE_INVALID", message, options);
  }
}

/** Pruning options that cannot be applied. */
export class PruningOptionsError extends StoreError {
  constructor(message: string) {
    super("STORE_PRUNING_INVALID", message);
  }
}
