// A KVStore wrapper that charges a gas meter for every access, with upstream's costs and charge
// order (store/gaskv): flat cost first, then per-byte costs of key and value; iteration charges
// the bytes of each entry plus a flat cost per step, including the final step that finds the end.
import { type RangeReader, readRangeOf } from "../store/entry-iterators.ts";
import type { IterateOptions, KVStore } from "../store/types.ts";
import { GasDescriptor, type GasMeter, KV_GAS_CONFIG, type KVGasConfig } from "./gas.ts";

// Every read and write charges its key's and value's lengths times a per-byte cost: two BigInts made and dropped
// per charge, a few dozen charges a tx. The products for the lengths keys and values have are made once per cost.
const PER_BYTE_TABLE_LENGTH = 1024;
const MAX_PER_BYTE_TABLES = 8;
const perByteTables = new Map<bigint, bigint[]>();

/** `costPerByte * length`, from a table made once per cost for lengths below {@link PER_BYTE_TABLE_LENGTH}. */
export function perByteGas(costPerByte: bigint, length: number): bigint {
  let table = perByteTables.get(costPerByte);
  if (table === undefined && perByteTables.size < MAX_PER_BYTE_TABLES) {
    table = Array.from({ length: PER_BYTE_TABLE_LENGTH }, (_, i) => costPerByte * BigInt(i));
    perByteTables.set(costPerByte, table);
  }
  return length < PER_BYTE_TABLE_LENGTH && table !== undefined
    ? (table[length] as bigint)
    : costPerByte * BigInt(length);
}

/** Wraps `parent` so that every operation consumes gas from `meter` according to `config`. */
export function gasKVStore(parent: KVStore, meter: GasMeter, config: KVGasConfig = KV_GAS_CONFIG): KVStore {
  return new GasKVStore(parent, meter, config);
}

// A class rather than an object of closures: every `ctx.kvStore(...)` call makes one, and methods on
// the prototype cost no allocation per store.
class GasKVStore implements KVStore, RangeReader {
  private readonly parent: KVStore;
  private readonly meter: GasMeter;
  private readonly config: KVGasConfig;

  constructor(parent: KVStore, meter: GasMeter, config: KVGasConfig) {
    this.parent = parent;
    this.meter = meter;
    this.config = config;
  }

  get(key: Uint8Array): Promise<Uint8Array | undefined> {
    // A branch answers at once (getNow): one resolved promise instead of two async frames, for the dozens of
    // reads of every tx. Errors (out of gas, a bad key) still arrive as a rejected promise.
    if (this.parent.getNow === undefined) return this.getAsync(key);
    try {
      this.meter.consume(this.config.readCostFlat, GasDescriptor.readFlat);
      const value = this.parent.getNow(key);
      this.chargeRead(key, value);
      return Promise.resolve(value);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  private async getAsync(key: Uint8Array): Promise<Uint8Array | undefined> {
    this.meter.consume(this.config.readCostFlat, GasDescriptor.readFlat);
    const value = await this.parent.get(key);
    this.chargeRead(key, value);
    return value;
  }

  private chargeRead(key: Uint8Array, value: Uint8Array | undefined): void {
    const { meter, config } = this;
    meter.consume(perByteGas(config.readCostPerByte, key.length), GasDescriptor.readPerByte);
    meter.consume(perByteGas(config.readCostPerByte, value?.length ?? 0), GasDescriptor.readPerByte);
  }

  async has(key: Uint8Array): Promise<boolean> {
    this.meter.consume(this.config.hasCost, GasDescriptor.has);
    return this.parent.has(key);
  }

  set(key: Uint8Array, value: Uint8Array): void {
    const { meter, config } = this;
    meter.consume(config.writeCostFlat, GasDescriptor.writeFlat);
    meter.consume(perByteGas(config.writeCostPerByte, key.length), GasDescriptor.writePerByte);
    meter.consume(perByteGas(config.writeCostPerByte, value.length), GasDescriptor.writePerByte);
    this.parent.set(key, value);
  }

  delete(key: Uint8Array): void {
    this.meter.consume(this.config.deleteCost, GasDescriptor.delete);
    this.parent.delete(key);
  }

  iterate(options?: IterateOptions): AsyncIterable<[Uint8Array, Uint8Array]> {
    return new MeteredIteration(this.parent.iterate(options), this.meter, this.config);
  }

  /**
   * The range read in one call, charged exactly as an iteration that stepped through the entries
   * returned and, when there were fewer than the limit, one step more to find the end.
   */
  async readRange(options: IterateOptions & { limit: number }): Promise<Entry[]> {
    const entries = await readRangeOf(this.parent, options);
    const { meter, config } = this;
    for (const [key, value] of entries) {
      meter.consume(perByteGas(config.readCostPerByte, key.length), GasDescriptor.valuePerByte);
      meter.consume(perByteGas(config.readCostPerByte, value.length), GasDescriptor.valuePerByte);
      meter.consume(config.iterNextCostFlat, GasDescriptor.iterNextFlat);
    }
    if (entries.length < options.limit) meter.consume(config.iterNextCostFlat, GasDescriptor.iterNextFlat);
    return entries;
  }
}

type Entry = [Uint8Array, Uint8Array];

/**
 * The metered iteration, written as a plain async iterator: an async generator layer costs several
 * promise ticks per entry, and every paginated query steps through this one.
 */
class MeteredIteration implements AsyncIterableIterator<Entry> {
  private readonly entries: AsyncIterable<Entry>;
  private readonly meter: GasMeter;
  private readonly config: KVGasConfig;
  private source: AsyncIterator<Entry> | undefined;
  private finished = false;

  constructor(entries: AsyncIterable<Entry>, meter: GasMeter, config: KVGasConfig) {
    this.entries = entries;
    this.meter = meter;
    this.config = config;
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<Entry> {
    return this;
  }

  async next(): Promise<IteratorResult<Entry>> {
    if (this.finished) return { done: true, value: undefined };
    this.source ??= this.entries[Symbol.asyncIterator]();
    let step: IteratorResult<Entry>;
    try {
      step = await this.source.next();
    } catch (err) {
      this.finished = true;
      throw err;
    }
    const { meter, config } = this;
    if (step.done) {
      this.finished = true;
      // Upstream charges the flat step cost for the move that lands past the last entry, too.
      meter.consume(config.iterNextCostFlat, GasDescriptor.iterNextFlat);
      return step;
    }
    try {
      meter.consume(perByteGas(config.readCostPerByte, step.value[0].length), GasDescriptor.valuePerByte);
      meter.consume(perByteGas(config.readCostPerByte, step.value[1].length), GasDescriptor.valuePerByte);
      meter.consume(config.iterNextCostFlat, GasDescriptor.iterNextFlat);
    } catch (err) {
      // Out of gas mid-iteration: the consumer sees a throw and will not close us, so close the source.
      await this.return();
      throw err;
    }
    return step;
  }

  async return(): Promise<IteratorResult<Entry>> {
    if (!this.finished) {
      this.finished = true;
      await this.source?.return?.();
    }
    return { done: true, value: undefined };
  }
}
