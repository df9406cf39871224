// A KVStore wrapper that charges a gas meter for every access, with upstream's costs and charge
// order (store/gaskv): flat cost first, then per-byte costs of key and value; iteration charges
// the bytes of each entry plus a flat cost per step, including the final step that finds the end.
import type { IterateOptions, KVStore } from "../store/types.ts";
import { GasDescriptor, type GasMeter, KV_GAS_CONFIG, type KVGasConfig } from "./gas.ts";

/** Wraps `parent` so that every operation consumes gas from `meter` according to `config`. */
export function gasKVStore(parent: KVStore, meter: GasMeter, config: KVGasConfig = KV_GAS_CONFIG): KVStore {
  return {
    async get(key: Uint8Array): Promise<Uint8Array | undefined> {
      meter.consume(config.readCostFlat, GasDescriptor.readFlat);
      const value = await parent.get(key);
      meter.consume(config.readCostPerByte * BigInt(key.length), GasDescriptor.readPerByte);
      meter.consume(config.readCostPerByte * BigInt(value?.length ?? 0), GasDescriptor.readPerByte);
      return value;
    },
    async has(key: Uint8Array): Promise<boolean> {
      meter.consume(config.hasCost, GasDescriptor.has);
      return parent.has(key);
    },
    set(key: Uint8Array, value: Uint8Array): void {
      meter.consume(config.writeCostFlat, GasDescriptor.writeFlat);
      meter.consume(config.writeCostPerByte * BigInt(key.length), GasDescriptor.writePerByte);
      meter.consume(config.writeCostPerByte * BigInt(value.length), GasDescriptor.writePerByte);
      parent.set(key, value);
    },
    delete(key: Uint8Array): void {
      meter.consume(config.deleteCost, GasDescriptor.delete);
      parent.delete(key);
    },
    iterate(options?: IterateOptions): AsyncIterable<[Uint8Array, Uint8Array]> {
      return meteredIteration(parent.iterate(options), meter, config);
    },
  };
}

async function* meteredIteration(
  source: AsyncIterable<[Uint8Array, Uint8Array]>,
  meter: GasMeter,
  config: KVGasConfig,
): AsyncIterable<[Uint8Array, Uint8Array]> {
  for await (const entry of source) {
    meter.consume(config.readCostPerByte * BigInt(entry[0].length), GasDescriptor.valuePerByte);
    meter.consume(config.readCostPerByte * BigInt(entry[1].length), GasDescriptor.valuePerByte);
    meter.consume(config.iterNextCostFlat, GasDescriptor.iterNextFlat);
    yield entry;
  }
  // Upstream charges the flat step cost for the move that lands past the last entry, too.
  meter.consume(config.iterNextCostFlat, GasDescriptor.iterNextFlat);
}
