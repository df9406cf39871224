// Which blocks the node may prune after a commit: upstream's GetBlockRetentionHeight.

/**
 * Upstream's GetBlockRetentionHeight: 0 (keep everything) without min-retain-blocks; else the lowest non-zero of
 * height − evidence max age, height − snapshot interval × keep-recent and height − min-retain-blocks, so blocks
 * evidence or state sync may still need are kept; 0 when that is not above 0.
 * @example blockRetentionHeight(200_000n, 10n, { evidenceMaxAgeNumBlocks: 100_000n }) === 100_000n
 */
export function blockRetentionHeight(
  height: bigint,
  minRetainBlocks: bigint,
  bounds: { evidenceMaxAgeNumBlocks?: bigint; snapshotInterval?: bigint; snapshotKeepRecent?: bigint } = {},
): bigint {
  if (minRetainBlocks === 0n) return 0n;
  const minNonZero = (x: bigint, y: bigint) => (x === 0n ? y : y === 0n ? x : x < y ? x : y);
  let retention = 0n;
  const maxAge = bounds.evidenceMaxAgeNumBlocks ?? 0n;
  if (maxAge > 0n) retention = height - maxAge;
  const snapshotBlocks = (bounds.snapshotInterval ?? 0n) * (bounds.snapshotKeepRecent ?? 0n);
  if (snapshotBlocks > 0n) retention = minNonZero(retention, height - snapshotBlocks);
  retention = minNonZero(retention, height - minRetainBlocks);
  return retention > 0n ? retention : 0n;
}
