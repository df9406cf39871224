// A chain's identity: what tells its addresses, coins, dev chain and files apart from another chain's on the same
// machine. A chain declares what differs from the reference chain in its manifest (`identity`); everything else
// takes the reference chain's value, so `chaind` itself declares nothing and keeps `chain1…`, `stake` and
// `chaind-dev` (and with them every pinned app hash).
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { type Bech32Prefixes, bech32PrefixesOf } from "../crypto/bech32.ts";
import { UserError } from "../errors/user-error.ts";

/** What a chain may declare about its identity (each field optional: the reference chain's value otherwise). */
export interface ChainIdentityOptions {
  /**
   * The account address prefix (`tally` gives `tally1…`); the validator operator and consensus prefixes follow
   * the Cosmos convention (`tallyvaloper`, `tallyvalcons`) unless given below. Default `chain`.
   */
  bech32Prefix?: string;
  /** The validator operator prefix (default `<bech32Prefix>valoper`). */
  bech32ValidatorPrefix?: string;
  /** The consensus address prefix (default `<bech32Prefix>valcons`). */
  bech32ConsensusPrefix?: string;
  /** The bond and fee denom of a new genesis (`init`, `dev`) and of the CLI's examples. Default `stake`. */
  denom?: string;
  /** The chain id `dev` creates. Default `chaind-dev`. */
  devChainId?: string;
  /** The binary's name in help, hints and release files. Default: the manifest's `name`. */
  binary?: string;
  /** The default home (`~` expands to the user's home). Default `~/.<binary>`. */
  defaultHome?: string;
}

/** A chain's identity with every default filled in. */
export interface ChainIdentity {
  /** The binary's name (`chaind`, `tallyd`). */
  readonly binary: string;
  readonly bech32: Bech32Prefixes;
  /** Bond and fee denom. */
  readonly denom: string;
  /** The chain id of `dev`. */
  readonly devChainId: string;
  /** The default home, absolute. */
  readonly defaultHome: string;
}

/** The reference chain's values, the default of each field. */
export const REFERENCE_IDENTITY = {
  bech32Prefix: "chain",
  denom: "stake",
  devChainId: "chaind-dev",
} as const;

// Cosmos SDK's coin denom rule: a letter, then 2-127 letters, digits or /:._-.
const DENOM = /^[a-zA-Z][a-zA-Z0-9/:._-]{2,127}$/;
// A chain id as CometBFT takes it: 1-50 characters, no whitespace.
const CHAIN_ID = /^\S{1,50}$/;

/** Thrown when a chain declares an identity field that cannot work (one line: the field, the value, what was expected). */
export class ChainIdentityError extends UserError {
  constructor(message: string) {
    super(message);
    this.name = "ChainIdentityError";
  }
}

/**
 * The identity of `chain` (its manifest's `identity` over the reference chain's values). Throws
 * {@link ChainIdentityError} for a prefix, denom or chain id the chain could not use.
 * @example chainIdentity({ name: "tallyd", releases, identity: { bech32Prefix: "tally", denom: "utally" } }).bech32.acc // "tally"
 */
export function chainIdentity(chain: { name: string; identity?: ChainIdentityOptions }): ChainIdentity {
  const options = chain.identity ?? {};
  const binary = options.binary ?? chain.name;
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(binary)) {
    throw new ChainIdentityError(
      `chain "${chain.name}": invalid binary name "${binary}": expected letters, digits, ".", "_" or "-"`,
    );
  }
  let bech32: Bech32Prefixes;
  try {
    bech32 = bech32PrefixesOf({
      account: options.bech32Prefix ?? REFERENCE_IDENTITY.bech32Prefix,
      validator: options.bech32ValidatorPrefix,
      consensus: options.bech32ConsensusPrefix,
    });
  } catch (error) {
    throw new ChainIdentityError(`chain "${chain.name}": ${(error as Error).message}`);
  }
  const denom = options.denom ?? REFERENCE_IDENTITY.denom;
  if (!DENOM.test(denom)) {
    throw new ChainIdentityError(
      `chain "${chain.name}": invalid denom "${denom}": expected a letter then 2-127 letters, digits or /:._- (e.g. "utally")`,
    );
  }
  const devChainId = options.devChainId ?? REFERENCE_IDENTITY.devChainId;
  if (!CHAIN_ID.test(devChainId)) {
    throw new ChainIdentityError(
      `chain "${chain.name}": invalid dev chain id "${devChainId}": expected 1-50 characters without spaces`,
    );
  }
  return { binary, bech32, denom, devChainId, defaultHome: homeOf(options.defaultHome, binary) };
}

function homeOf(declared: string | undefined, binary: string): string {
  if (declared === undefined || declared === "") return join(homedir(), `.${binary}`);
  if (declared === "~") return homedir();
  if (declared.startsWith("~/")) return join(homedir(), declared.slice(2));
  return resolve(declared);
}

// The identity this process serves: set by the runtime's useChain (src/runtime/current-chain.ts) when a chain's
// binary starts, read by every floor that prints or checks a denom or an address (the CLI's flags, the REST pages).
// It lives here, below them all, so that none of them reaches up to the runtime for it.
let current: ChainIdentity | undefined;

/** Makes `identity` the one this process serves (src/runtime/current-chain.ts `useChain` calls it). */
export function setCurrentChainIdentity(identity: ChainIdentity): void {
  current = identity;
}

/**
 * The identity of the chain this process serves (prefixes, denom, dev chain id, binary, default home): the
 * reference chain's until a chain is set with `useChain`.
 */
export function currentChainIdentity(): ChainIdentity {
  current ??= chainIdentity({ name: "chaind" });
  return current;
}
