// The first difference between two states of the same version: the store and the first key (in key order) whose
// value differs or that only one side has. Used when the determinism run's app hash is not the first run's.

import { hexUpper } from "../../app/tx-response.ts";
import type { CommitMultiStore, ReadableKVStore } from "../../store/types.ts";

/** Where two states first differ. */
export interface StateDifference {
  store: string;
  /** The key, hex; undefined when the store exists on one side only. */
  key?: string;
  /** The key as text, when it is printable ASCII. */
  keyText?: string;
  /** Each side's value (hex), undefined when that side lacks the key (or the store). */
  first?: string;
  second?: string;
}

/** Compares every store of `first` and `second` at `version`; undefined when they hold the same entries. */
export async function firstDifference(
  first: CommitMultiStore,
  second: CommitMultiStore,
  version: bigint,
): Promise<StateDifference | undefined> {
  const [a, b] = [await first.view(version), await second.view(version)];
  const names = [...new Set([...a.storeNames(), ...b.storeNames()])].sort();
  for (const name of names) {
    const inA = a.storeNames().includes(name);
    const inB = b.storeNames().includes(name);
    if (!inA || !inB) return { store: name };
    const difference = await firstKeyDifference(a.store(name), b.store(name));
    if (difference !== undefined) return { store: name, ...difference, keyText: printable(difference.key) };
  }
  return undefined;
}

async function firstKeyDifference(
  a: ReadableKVStore,
  b: ReadableKVStore,
): Promise<{ key: string; first?: string; second?: string } | undefined> {
  const left = a.iterate()[Symbol.asyncIterator]();
  const right = b.iterate()[Symbol.asyncIterator]();
  let l = await left.next();
  let r = await right.next();
  while (!l.done || !r.done) {
    if (l.done) return { key: hexUpper(r.value![0]), second: hexUpper(r.value![1]) };
    if (r.done) return { key: hexUpper(l.value[0]), first: hexUpper(l.value[1]) };
    const order = Buffer.compare(l.value[0], r.value[0]);
    if (order < 0) return { key: hexUpper(l.value[0]), first: hexUpper(l.value[1]) };
    if (order > 0) return { key: hexUpper(r.value[0]), second: hexUpper(r.value[1]) };
    if (Buffer.compare(l.value[1], r.value[1]) !== 0) {
      return { key: hexUpper(l.value[0]), first: hexUpper(l.value[1]), second: hexUpper(r.value[1]) };
    }
    l = await left.next();
    r = await right.next();
  }
  return undefined;
}

function printable(hex: string): string | undefined {
  const bytes = Buffer.from(hex, "hex");
  return bytes.every((b) => b >= 0x20 && b < 0x7f) ? bytes.toString("latin1") : undefined;
}
