// The guestbook module: signatures (name → message) filled from genesis and by its Msg `Sign` into one store, read
// by its Query `Signature` (protos in ../proto, code generated into ../gen). Consensus version 1 keeps a message as
// plain text. Version 2 keeps it as JSON `{"message": …, "signedIn": …}` and counts the guests in a store of its
// own, `guestbook_stats` (added by upgrade v2, app.ts); the migration 1 → 2 rewrites every entry and writes the
// count. Written only against the chaind package's exports.
import type { JsonValue } from "@bufbuild/protobuf";
import { type AppModule, type Context, GrpcCode, grpcError, registerError } from "chaind/app";
import { file_guestbook_v1_query, Query } from "../gen/guestbook/v1/query_pb.js";
import { file_guestbook_v1_tx, Msg } from "../gen/guestbook/v1/tx_pb.js";

/** One signature. */
export interface Signature {
  name: string;
  message: string;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Options of {@link guestbookModule}. */
export interface GuestbookOptions {
  /** The store the module keeps its entries in (v1: "entries_v1", renamed "guestbook" by upgrade v2). */
  storeKey: string;
  /** 1: plain-text messages; 2: JSON messages, with the migration from 1. */
  consensusVersion: 1n | 2n;
}

/** Genesis `{ "signatures": [{ "name": …, "message": … }] }`, checked strictly. */
function parseGenesis(genesis: JsonValue): Signature[] {
  const list = (genesis as { signatures?: unknown } | null)?.signatures;
  if (!Array.isArray(list)) {
    throw new Error(`guestbook genesis: expected {"signatures": [...]}, got ${JSON.stringify(genesis)}`);
  }
  return list.map((entry, index) => {
    const { name, message } = (entry ?? {}) as Record<string, unknown>;
    if (typeof name !== "string" || name === "" || typeof message !== "string") {
      throw new Error(`guestbook genesis: signature ${index} needs a non-empty "name" and a "message" string`);
    }
    return { name, message };
  });
}

/** The guestbook's codespace. */
export const GUESTBOOK_CODESPACE = "guestbook";

/** A `Sign` whose name or message is not acceptable. */
export const ErrInvalidEntry = registerError(
  GUESTBOOK_CODESPACE,
  2,
  "invalid guestbook entry",
  GrpcCode.InvalidArgument,
);

/** The longest message `Sign` accepts, in characters. */
export const MAX_MESSAGE_LENGTH = 280;

/** The store version 2 adds (upgrade v2's `added`): the number of guests, under key {@link GUEST_COUNT_KEY}. */
export const STATS_STORE = "guestbook_stats";
/** The key of the guest count in {@link STATS_STORE}: a decimal number. */
export const GUEST_COUNT_KEY = "guests";
const guestCountKey = encoder.encode(GUEST_COUNT_KEY);

/** The guest count kept in {@link STATS_STORE} (0 before the first write). */
async function guestCount(ctx: Context): Promise<bigint> {
  const value = await ctx.kvStore(STATS_STORE).get(guestCountKey);
  return value === undefined ? 0n : BigInt(decoder.decode(value));
}

function setGuestCount(ctx: Context, count: bigint): void {
  ctx.kvStore(STATS_STORE).set(guestCountKey, encoder.encode(count.toString()));
}

/** The value a message is stored as at `version` (`signedIn`: where a v2 entry was written). */
function encodeMessage(message: string, version: bigint, signedIn = "genesis"): Uint8Array {
  return encoder.encode(version === 1n ? message : JSON.stringify({ message, signedIn }));
}

/** The message of a stored value at `version`. */
function decodeMessage(value: Uint8Array, version: bigint): string {
  const text = decoder.decode(value);
  return version === 1n ? text : (JSON.parse(text) as { message: string }).message;
}

/**
 * Migration 1 → 2: every plain-text message becomes JSON, marked as signed in v1, and the new store
 * {@link STATS_STORE} (mounted empty by the upgrade) gets the number of guests.
 *
 * @example await migrateGuestbookV1ToV2(ctx, "guestbook");
 */
export async function migrateGuestbookV1ToV2(ctx: Context, storeKey: string): Promise<void> {
  const store = ctx.kvStore(storeKey);
  const entries: [Uint8Array, Uint8Array][] = [];
  for await (const [key, value] of store.iterate()) entries.push([key, value]);
  for (const [key, value] of entries) {
    store.set(key, encoder.encode(JSON.stringify({ message: decoder.decode(value), signedIn: "v1" })));
  }
  setGuestCount(ctx, BigInt(entries.length));
}

/**
 * The guestbook AppModule.
 *
 * @example guestbookModule({ storeKey: "entries_v1", consensusVersion: 1n })
 */
export function guestbookModule(options: GuestbookOptions): AppModule {
  const { storeKey, consensusVersion } = options;
  return {
    name: "guestbook",
    consensusVersion,
    storeKeys: consensusVersion === 1n ? [storeKey] : [storeKey, STATS_STORE],
    defaultGenesis: () => ({ signatures: [] }),
    validateGenesis(genesis) {
      parseGenesis(genesis);
    },
    async initGenesis(ctx, genesis) {
      const store = ctx.kvStore(storeKey);
      const signatures = parseGenesis(genesis);
      for (const { name, message } of signatures) {
        store.set(encoder.encode(name), encodeMessage(message, consensusVersion));
      }
      // One entry a name: a name given twice is one guest.
      if (consensusVersion >= 2n) setGuestCount(ctx, BigInt(new Set(signatures.map((s) => s.name)).size));
      return undefined;
    },
    async exportGenesis(ctx) {
      const signatures: JsonValue[] = [];
      for await (const [key, value] of ctx.kvStore(storeKey).iterate()) {
        signatures.push({ name: decoder.decode(key), message: decodeMessage(value, consensusVersion) });
      }
      return { signatures };
    },
    // The generated files, so the node's registry (tx decoding, REST and gRPC JSON) knows the module's types.
    types: [file_guestbook_v1_tx, file_guestbook_v1_query],
    registerServices(registrar) {
      registrar.registerMsgService(Msg, {
        async sign({ name, message }, ctx) {
          if (name === "" || name.length > 64) {
            throw ErrInvalidEntry.wrap(`name "${name}" must have 1 to 64 characters`);
          }
          if (message.length > MAX_MESSAGE_LENGTH) {
            throw ErrInvalidEntry.wrap(`message of ${message.length} characters, at most ${MAX_MESSAGE_LENGTH}`);
          }
          const store = ctx.kvStore(storeKey);
          const key = encoder.encode(name);
          // A new guest counts once (version 2); rewriting one's own entry does not.
          if (consensusVersion >= 2n && (await store.get(key)) === undefined) {
            setGuestCount(ctx, (await guestCount(ctx)) + 1n);
          }
          store.set(key, encodeMessage(message, consensusVersion, "tx"));
          return {};
        },
      });
      registrar.registerQueryService(Query, {
        async signature({ name }, ctx) {
          if (name === "") throw grpcError(GrpcCode.InvalidArgument, "name cannot be empty");
          const value = await ctx.kvStore(storeKey).get(encoder.encode(name));
          if (value === undefined) throw grpcError(GrpcCode.NotFound, `no signature of "${name}"`);
          return { name, message: decodeMessage(value, consensusVersion) };
        },
      });
    },
    // Hold at every height of this version (`__BINARY__ upgrade rehearse` checks them after the upgrade): each
    // entry is a message in this version's encoding, and version 2's count is the number of entries.
    invariants: [
      {
        name: "entries-readable",
        async check(ctx) {
          let entries = 0n;
          for await (const [key, value] of ctx.kvStore(storeKey).iterate()) {
            entries++;
            if (consensusVersion === 1n) continue; // plain text: any bytes are a message
            const parsed = JSON.parse(decoder.decode(value)) as { message?: unknown } | null;
            if (typeof parsed?.message !== "string") {
              throw new Error(`the entry of ${decoder.decode(key)} is not {"message": …}: ${decoder.decode(value)}`);
            }
          }
          if (consensusVersion >= 2n && (await guestCount(ctx)) !== entries) {
            throw new Error(`${STATS_STORE} counts ${await guestCount(ctx)} guests, the guestbook holds ${entries}`);
          }
        },
      },
    ],
    registerMigrations(registrar) {
      if (consensusVersion >= 2n)
        registrar.registerMigration("guestbook", 1n, (ctx) => migrateGuestbookV1ToV2(ctx, storeKey));
    },
  };
}
