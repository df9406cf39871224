// Where the upgrade store keeps stepped migrations (README "State"):
//   0x08 ‖ len ‖ upgrade ‖ len ‖ module ‖ name → SteppedMigrationRecord (status and cursor), kept after it finishes
//   0x09                                     → how many are running (8-byte big-endian), absent when none
// 0x09 lets the transaction guard answer "nothing is migrating" with one read, the common case.
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { concatBytes } from "../../bytes/concat.ts";
import { utf8 } from "../../bytes/text.ts";
import {
  type SteppedMigrationRecord,
  SteppedMigrationRecordSchema,
  SteppedMigrationSchema,
  type SteppedMigration as SteppedMigrationStatus,
} from "../../gen/chain/upgrade/v1beta1/upgrade_pb.js";
import type { KVStore, ReadableKVStore } from "../../store/types.ts";
import { decodeUint64, encodeUint64 } from "./keys.ts";

/** `0x08 ‖ …` → one stepped migration's record. */
export const MIGRATION_PREFIX = new Uint8Array([0x08]);
/** `0x09` → the number of running stepped migrations. */
export const RUNNING_MIGRATIONS_KEY = new Uint8Array([0x09]);

/** The identity of a stepped migration. */
export interface MigrationId {
  upgrade: string;
  module: string;
  name: string;
}

/** A stored stepped migration: its public status and the cursor its next step starts from. */
export interface StoredMigration {
  status: SteppedMigrationStatus;
  /** Empty before the first step. */
  cursor: Uint8Array;
}

function lengthPrefixed(text: string): Uint8Array {
  const bytes = utf8(text);
  if (bytes.length > 255) throw new Error(`stepped migration key part "${text}" is longer than 255 bytes`);
  return concatBytes(new Uint8Array([bytes.length]), bytes);
}

/** `0x08 ‖ len ‖ upgrade ‖ len ‖ module ‖ name`. */
export function migrationKey(id: MigrationId): Uint8Array {
  return concatBytes(MIGRATION_PREFIX, lengthPrefixed(id.upgrade), lengthPrefixed(id.module), utf8(id.name));
}

/** "v3/bank/balances" — how logs and errors name a migration. */
export function migrationLabel(id: MigrationId): string {
  return `${id.upgrade}/${id.module}/${id.name}`;
}

/** Every stored stepped migration in key order (upgrade, module, name). */
export async function readMigrations(store: ReadableKVStore): Promise<StoredMigration[]> {
  const out: StoredMigration[] = [];
  for await (const [, value] of store.iterate({ prefix: MIGRATION_PREFIX })) out.push(decodeRecord(value));
  return out;
}

/** The number of running stepped migrations (0 when the key is absent). */
export async function runningMigrationCount(store: ReadableKVStore): Promise<bigint> {
  const value = await store.get(RUNNING_MIGRATIONS_KEY);
  return value === undefined ? 0n : decodeUint64(value, "the running stepped migrations count");
}

/**
 * True when `store` can tell at once (a branch's `getNow`) that no stepped migration runs: the count's key is absent.
 * False when it runs, or the store cannot say without waiting, or the read fails: then ask {@link readRunningMigrations}.
 */
export function noMigrationRunningNow(store: ReadableKVStore): boolean {
  if (store.getNow === undefined) return false;
  try {
    return store.getNow(RUNNING_MIGRATIONS_KEY) === undefined;
  } catch {
    return false;
  }
}

/** Only the running ones, in key order; one read when none runs. */
export async function readRunningMigrations(store: ReadableKVStore): Promise<StoredMigration[]> {
  if ((await runningMigrationCount(store)) === 0n) return [];
  return (await readMigrations(store)).filter((m) => m.status.finishedHeight === 0n);
}

/** Writes a migration's record. */
export function writeMigration(store: KVStore, migration: StoredMigration): void {
  const record: SteppedMigrationRecord = create(SteppedMigrationRecordSchema, {
    migration: migration.status,
    cursor: migration.cursor,
  });
  store.set(migrationKey(migration.status), toBinary(SteppedMigrationRecordSchema, record));
}

/** Sets the running count (deleting the key at 0, so a chain without migrations keeps its store as it was). */
export function setRunningMigrationCount(store: KVStore, count: bigint): void {
  if (count === 0n) store.delete(RUNNING_MIGRATIONS_KEY);
  else store.set(RUNNING_MIGRATIONS_KEY, encodeUint64(count));
}

/** A fresh record for a migration started at `height`. */
export function newMigrationStatus(id: MigrationId, height: bigint): SteppedMigrationStatus {
  return create(SteppedMigrationSchema, {
    upgrade: id.upgrade,
    module: id.module,
    name: id.name,
    startedHeight: height,
    finishedHeight: 0n,
    progress: "",
    steps: 0n,
  });
}

function decodeRecord(bytes: Uint8Array): StoredMigration {
  const record = fromBinary(SteppedMigrationRecordSchema, bytes);
  if (record.migration === undefined)
    throw new Error("corrupt upgrade store: a stepped migration record has no status");
  return { status: record.migration, cursor: record.cursor };
}
