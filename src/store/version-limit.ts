// The highest version, and so the highest block height, the state store can number. Versions are JS numbers
// in memory (the tree's nodes, its caches, the commit bookkeeping), exact only up to 2^53 − 1: past it
// `latest + 1` rounds back onto `latest`. A chain therefore runs up to that height and no further; genesis
// validation (src/config/genesis.ts) refuses an `initial_height` above it, and a commit past it is refused
// with VersionLimitError rather than misnumbered.

/** 2^53 − 1 = 9007199254740991: the last version (block height) the state store can commit. */
export const MAX_VERSION: bigint = BigInt(Number.MAX_SAFE_INTEGER);
