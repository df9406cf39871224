// The two halt lines of the binary guards (docs/CONTRACT.md §2.4), as upstream prints them; the keeper's guards
// (keeper.ts: downgradeGuard, earlyBinaryGuard) return them and PreBlock or the pre-mount check halts with them.

/** `wrong app version <v>, upgrade handler is missing for <name> upgrade plan`. */
export function wrongAppVersionMessage(protocolVersion: bigint, name: string): string {
  return `wrong app version ${protocolVersion}, upgrade handler is missing for ${name} upgrade plan`;
}

/** `BINARY UPDATED BEFORE TRIGGER! UPGRADE "<name>" - in binary but not executed on chain. Downgrade your binary`. */
export function binaryUpdatedBeforeTriggerMessage(name: string): string {
  return `BINARY UPDATED BEFORE TRIGGER! UPGRADE "${name}" - in binary but not executed on chain. Downgrade your binary`;
}
