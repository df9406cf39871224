// The `upgrade` codespace (upstream's numbering) and the halt errors the upgrade guard throws to stop the
// node without committing anything of the current block.
import { GrpcCode, registerError } from "../../app/errors.ts";
import { HaltError } from "../../app/halt.ts";
import { UserError } from "../../errors/user-error.ts";

/** Codespace of the module's registered errors. */
export const UPGRADE_CODESPACE = "upgrade";

/** upgrade/2: an unknown module in ModuleVersions (answered as NotFound, 404 on REST). */
export const ErrNoModuleVersionFound = registerError(
  UPGRADE_CODESPACE,
  2,
  "module version not found",
  GrpcCode.NotFound,
);
/** upgrade/3: no plan where one is required. */
export const ErrNoUpgradePlanFound = registerError(UPGRADE_CODESPACE, 3, "upgrade plan not found", GrpcCode.NotFound);
/** upgrade/4: kept for numbering parity with upstream (IBC's upgraded client lives in IBC now). */
export const ErrNoUpgradedClientFound = registerError(
  UPGRADE_CODESPACE,
  4,
  "upgraded client not found",
  GrpcCode.NotFound,
);
/** upgrade/5: kept for numbering parity with upstream. */
export const ErrNoUpgradedConsensusStateFound = registerError(
  UPGRADE_CODESPACE,
  5,
  "upgraded consensus state not found",
  GrpcCode.NotFound,
);
/** upgrade/6: a Msg whose authority is not the module's authority. */
export const ErrInvalidSigner = registerError(
  UPGRADE_CODESPACE,
  6,
  "expected authority account as only signer for proposal message",
  GrpcCode.PermissionDenied,
);

/**
 * upgrade/7: a tx carrying a message of a module whose stepped migration is running; the message is the whole text,
 * `module bank is migrating: 41% done, started at height 1200` (migration-guard.ts).
 */
export const ErrModuleMigrating = registerError(
  UPGRADE_CODESPACE,
  7,
  "module is migrating",
  GrpcCode.FailedPrecondition,
);

/**
 * Process exit statuses of the upgrade halts (documented in README.md, "Exit statuses"). All differ from
 * a crash (1), from Node's own statuses (1–14, >128) and from the pre-upgrade protocol (30, 31):
 * - 20 `needed`: the chain reached a plan this binary has no handler for; upgrade-info.json is written,
 *   a supervisor (chainvisor, cosmovisor) switches binaries and restarts;
 * - 21 `wrongBinary`: this binary does not fit the chain (a downgrade, or an upgrade binary started
 *   before its height); restarting the same binary is pointless;
 * - 22 `upgradeFailed`: this binary's upgrade handler or a migration failed at the upgrade height.
 */
export const UPGRADE_EXIT_CODES = { needed: 20, wrongBinary: 21, upgradeFailed: 22 } as const;

/** What kind of halt a {@link UpgradeHaltError} is. */
export type UpgradeHaltKind = keyof typeof UPGRADE_EXIT_CODES;

/**
 * Thrown from the upgrade module's PreBlock/EndBlock to stop the node: a HaltError (reason `upgrade`), so the App
 * stages and commits nothing of the current block and the driver exits with `exitCode`.
 */
export class UpgradeHaltError extends HaltError {
  readonly kind: UpgradeHaltKind;
  /** The block height at which the node halted. */
  readonly height: bigint;

  constructor(kind: UpgradeHaltKind, message: string, height: bigint, options?: { cause?: unknown }) {
    super(message, { exitCode: UPGRADE_EXIT_CODES[kind], reason: "upgrade", cause: options?.cause });
    this.name = "UpgradeHaltError";
    this.kind = kind;
    this.height = height;
  }
}

/** An error for an invalid upgrade-info.json or another file the module reads; `path` names the file. */
export class UpgradeInfoFileError extends UserError {
  readonly path: string;

  constructor(path: string, message: string, options?: { cause?: unknown }) {
    super(`${path}: ${message}`, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = "UpgradeInfoFileError";
    this.path = path;
  }
}

/**
 * A release's upgrades that cannot be installed: an upgrade without a name or listed twice, or an upgrade-info.json
 * naming an upgrade this release does not know. The message names the upgrade (a user error: one line, no stack).
 */
export class UpgradeDefinitionError extends UserError {
  constructor(message: string) {
    super(message);
    this.name = "UpgradeDefinitionError";
  }
}
