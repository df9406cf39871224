// What a branch read from the state beneath it, store by store: the keys it looked up and the ranges it scanned.
// Work done ahead on a branch of the committed state (a stepped migration's next step, src/x/upgrade/migration-
// lookahead.ts) is only valid for a block whose own earlier writes it never read; this log answers that question.
import { bytesToBinaryString } from "../bytes/text.ts";
import type { KVSource, ScanRange } from "./kv-source.ts";

/** A scanned range as binary strings (byte order = string order); undefined ends are open. */
interface LoggedRange {
  lo: string | undefined;
  hi: string | undefined;
}

/** The keys and ranges read through the sources {@link ReadLog.source} made, per store. */
export class ReadLog {
  private readonly keys = new Map<string, Set<string>>();
  private readonly ranges = new Map<string, LoggedRange[]>();

  /** `parent` as seen by store `name`: every read passes through and is recorded. */
  source(name: string, parent: KVSource): KVSource {
    const readKeys = this.keys.get(name) ?? new Set<string>();
    this.keys.set(name, readKeys);
    const scanned = this.ranges.get(name) ?? [];
    this.ranges.set(name, scanned);
    return {
      readSync(key: Uint8Array, sk?: string): Uint8Array | undefined {
        const s = sk ?? bytesToBinaryString(key);
        readKeys.add(s);
        return parent.readSync(key, s);
      },
      scan(range: ScanRange): AsyncIterable<[Uint8Array, Uint8Array]> {
        // The whole range, even when the reader stops early: a write anywhere in it may change what it saw.
        scanned.push({
          lo: range.lo === undefined ? undefined : bytesToBinaryString(range.lo),
          hi: range.hi === undefined ? undefined : bytesToBinaryString(range.hi),
        });
        return parent.scan(range);
      },
    };
  }

  /** Whether the key `sk` (binary string) of store `name` was read or lies in a range scanned there. */
  saw(name: string, sk: string): boolean {
    if (this.keys.get(name)?.has(sk) === true) return true;
    for (const range of this.ranges.get(name) ?? []) {
      if ((range.lo === undefined || sk >= range.lo) && (range.hi === undefined || sk < range.hi)) return true;
    }
    return false;
  }
}
