// Gas: meters that count consumption against a limit, and upstream's KV gas costs. A meter throws
// OutOfGasError the moment consumption passes the limit; the consumption stays recorded above the
// limit (upstream reports gas_used > gas_wanted in an out-of-gas result).

/** Largest uint64: the limit of an infinite meter and the overflow bound. */
export const MAX_GAS = 0xffff_ffff_ffff_ffffn;

/** Thrown by a meter when consumption would pass its limit. `descriptor` names what consumed it. */
export class OutOfGasError extends Error {
  readonly descriptor: string;
  readonly limit: bigint;
  readonly consumed: bigint;

  constructor(descriptor: string, limit: bigint, consumed: bigint) {
    super(`out of gas in location: ${descriptor}; gasWanted: ${limit}, gasUsed: ${consumed}`);
    this.name = "OutOfGasError";
    this.descriptor = descriptor;
    this.limit = limit;
    this.consumed = consumed;
  }
}

/** Thrown when consumption would overflow uint64. */
export class GasOverflowError extends Error {
  readonly descriptor: string;

  constructor(descriptor: string) {
    super(`gas overflow in location: ${descriptor}`);
    this.name = "GasOverflowError";
    this.descriptor = descriptor;
  }
}

/** Counts gas for one transaction (or one block, or nothing in particular when infinite). */
export interface GasMeter {
  /** The limit (MAX_GAS for an infinite meter). */
  readonly limit: bigint;
  /** True for a meter that never runs out. */
  readonly infinite: boolean;
  /** Gas consumed so far (may exceed the limit after an OutOfGasError). */
  consumed(): bigint;
  /** Consumption capped at the limit. */
  consumedToLimit(): bigint;
  /** Adds `amount`; throws OutOfGasError when the total passes the limit. */
  consume(amount: bigint, descriptor: string): void;
  /** Gives back up to `amount` (never below zero). */
  refund(amount: bigint, descriptor: string): void;
  /** Gas left before the limit (0 when exhausted). */
  remaining(): bigint;
}

class BasicGasMeter implements GasMeter {
  readonly limit: bigint;
  readonly infinite: boolean;
  private used = 0n;

  constructor(limit: bigint, infinite: boolean) {
    this.limit = limit;
    this.infinite = infinite;
  }

  consumed(): bigint {
    return this.used;
  }

  consumedToLimit(): bigint {
    // biome-ignore lint/complexity/useMathMinMax: Math.min does not take bigints
    return this.used > this.limit ? this.limit : this.used;
  }

  consume(amount: bigint, descriptor: string): void {
    const next = this.used + amount;
    if (next > MAX_GAS) {
      this.used = MAX_GAS;
      throw new GasOverflowError(descriptor);
    }
    this.used = next;
    if (!this.infinite && next > this.limit) throw new OutOfGasError(descriptor, this.limit, next);
  }

  refund(amount: bigint, _descriptor: string): void {
    this.used = amount > this.used ? 0n : this.used - amount;
  }

  remaining(): bigint {
    return this.used >= this.limit ? 0n : this.limit - this.used;
  }
}

/** A meter with `limit` (a tx's fee.gas_limit). */
export function newGasMeter(limit: bigint): GasMeter {
  return new BasicGasMeter(limit, false);
}

/** A meter that counts but never runs out (blocks, genesis, simulation, queries). */
export function newInfiniteGasMeter(): GasMeter {
  return new BasicGasMeter(MAX_GAS, true);
}

/** Per-operation KV gas costs (upstream store/types/gas.go KVGasConfig). */
export interface KVGasConfig {
  hasCost: bigint;
  deleteCost: bigint;
  readCostFlat: bigint;
  readCostPerByte: bigint;
  writeCostFlat: bigint;
  writeCostPerByte: bigint;
  iterNextCostFlat: bigint;
}

/** Upstream's KVGasConfig. */
export const KV_GAS_CONFIG: Readonly<KVGasConfig> = Object.freeze({
  hasCost: 1000n,
  deleteCost: 1000n,
  readCostFlat: 1000n,
  readCostPerByte: 3n,
  writeCostFlat: 2000n,
  writeCostPerByte: 30n,
  iterNextCostFlat: 30n,
});

/** Upstream's TransientGasConfig (for transient stores, should one be added). */
export const TRANSIENT_GAS_CONFIG: Readonly<KVGasConfig> = Object.freeze({
  hasCost: 100n,
  deleteCost: 100n,
  readCostFlat: 100n,
  readCostPerByte: 0n,
  writeCostFlat: 200n,
  writeCostPerByte: 3n,
  iterNextCostFlat: 3n,
});

/** The descriptors upstream uses, visible in out-of-gas logs. */
export const GasDescriptor = {
  has: "Has",
  delete: "Delete",
  readFlat: "ReadFlat",
  readPerByte: "ReadPerByte",
  writeFlat: "WriteFlat",
  writePerByte: "WritePerByte",
  iterNextFlat: "IterNextFlat",
  valuePerByte: "ValuePerByte",
} as const;
