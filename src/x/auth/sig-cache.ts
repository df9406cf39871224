// Outcomes of signature checks already made, so a tx verified in CheckTx (or ahead of execution in
// FinalizeBlock) is not verified again. Verification is a pure function of (key, message,
// signature), so a remembered outcome is as good as a new one. An outcome is forgotten once a block
// has used it (the same signed tx cannot execute twice: its sequence has moved on), so the cache holds
// about the mempool's txs rather than every tx of the last 50,000; bounded all the same, oldest first.

const LIMIT = 50_000;
const outcomes = new Map<string, boolean>();

/** The cache key of one check. */
export function signatureKey(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): string {
  return `${latin1(publicKey)}|${latin1(signature)}|${latin1(message)}`;
}

/** The remembered outcome, if any. */
export function cachedOutcome(key: string): boolean | undefined {
  return outcomes.get(key);
}

/** Forgets an outcome (a block has used it). */
export function forgetOutcome(key: string): void {
  outcomes.delete(key);
}

/** Outcomes remembered now. */
export function rememberedOutcomes(): number {
  return outcomes.size;
}

/** Remembers an outcome. */
export function rememberOutcome(key: string, valid: boolean): void {
  if (outcomes.size >= LIMIT) {
    const oldest = outcomes.keys().next();
    if (!oldest.done) outcomes.delete(oldest.value);
  }
  outcomes.set(key, valid);
}

function latin1(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1");
}
