// app.toml `query-gas-limit`: a query's gas meter that stops the query once it has used more than the
// limit, so one expensive query (a huge page, a long prefix scan) cannot hold the node for long. Over
// the limit a query fails as upstream's does: sdk code 11 (out of gas), which the servers answer with
// a 500 (upstream: gRPC Unknown, HTTP 500) and ABCI Query with its error log.
import { ChainError, ErrOutOfGas, GrpcCode } from "./errors.ts";
import { type GasMeter, newGasMeter, OutOfGasError } from "./gas.ts";

/** A query used more gas than query-gas-limit allows. */
export function queryGasLimitError(limit: bigint, descriptor: string): ChainError {
  return new ChainError(
    ErrOutOfGas,
    `Query gas limit exceeded: ${limit}, out of gas in location: ${descriptor}: ${ErrOutOfGas.description}`,
    { grpcCode: GrpcCode.Internal },
  );
}

class QueryGasMeter implements GasMeter {
  readonly limit: bigint;
  readonly infinite = false;
  private readonly meter: GasMeter;

  constructor(limit: bigint) {
    this.limit = limit;
    this.meter = newGasMeter(limit);
  }

  consumed(): bigint {
    return this.meter.consumed();
  }

  consumedToLimit(): bigint {
    return this.meter.consumedToLimit();
  }

  consume(amount: bigint, descriptor: string): void {
    try {
      this.meter.consume(amount, descriptor);
    } catch (err) {
      if (err instanceof OutOfGasError) throw queryGasLimitError(this.limit, descriptor);
      throw err;
    }
  }

  refund(amount: bigint, descriptor: string): void {
    this.meter.refund(amount, descriptor);
  }

  remaining(): bigint {
    return this.meter.remaining();
  }
}

/** The meter of one query under query-gas-limit `limit` (> 0). */
export function newQueryGasMeter(limit: bigint): GasMeter {
  return new QueryGasMeter(limit);
}
