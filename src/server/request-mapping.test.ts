// Query parameters and path variables into request messages: every field kind, and the error for
// each kind of bad value.
import assert from "node:assert/strict";
import { test } from "node:test";
import { create } from "@bufbuild/protobuf";
import fc from "fast-check";
import { QueryAllBalancesRequestSchema, QuerySendEnabledRequestSchema } from "../gen/chain/bank/v1beta1/query_pb.js";
import {
  ABCIQueryRequestSchema,
  GetValidatorSetByHeightRequestSchema,
} from "../gen/chain/base/tendermint/v1beta1/query_pb.js";
import { GetTxsEventRequestSchema, OrderBy } from "../gen/chain/tx/v1beta1/service_pb.js";
import { applyQueryParameters, setFieldFromText } from "./request-mapping.ts";
import { RequestError } from "./status.ts";

function fromQuery<T extends Parameters<typeof create>[0]>(schema: T, query: string, exclude: string[] = []) {
  const message = create(schema);
  applyQueryParameters(schema, message, new URLSearchParams(query), new Set(exclude));
  return message;
}

function rejects(run: () => unknown, message: RegExp): void {
  assert.throws(run, (err: unknown) => {
    assert.ok(err instanceof RequestError, String(err));
    assert.equal(err.grpcCode, 3);
    assert.equal(err.httpStatus, 400);
    assert.match(err.message, message);
    return true;
  });
}

test("nested fields by dot notation, proto or lowerCamel names; unknown keys ignored", () => {
  const request = fromQuery(
    QueryAllBalancesRequestSchema,
    "pagination.limit=5&pagination.offset=2&pagination.countTotal=true&pagination.reverse=1&resolve_denom=t&nope=1&pagination.nope=2",
  );
  assert.equal(request.pagination?.limit, 5n);
  assert.equal(request.pagination?.offset, 2n);
  assert.equal(request.pagination?.countTotal, true);
  assert.equal(request.pagination?.reverse, true);
  assert.equal(request.resolveDenom, true);
});

test("path-bound fields are not overridden by the query string", () => {
  const request = create(QueryAllBalancesRequestSchema);
  setFieldFromText(QueryAllBalancesRequestSchema, request, "address", ["chain1path"], false);
  applyQueryParameters(
    QueryAllBalancesRequestSchema,
    request,
    new URLSearchParams("address=chain1query"),
    new Set(["address"]),
  );
  assert.equal(request.address, "chain1path");
});

test("repeated fields by repetition, no comma splitting; a singular field takes the first value", () => {
  const request = fromQuery(QuerySendEnabledRequestSchema, "denoms=a&denoms=b,c");
  assert.deepEqual(request.denoms, ["a", "b,c"]);
  const single = fromQuery(ABCIQueryRequestSchema, "path=/first&path=/second");
  assert.equal(single.path, "/first");
});

test("enums by name or number", () => {
  assert.equal(fromQuery(GetTxsEventRequestSchema, "order_by=ORDER_BY_DESC").orderBy, OrderBy.DESC);
  assert.equal(fromQuery(GetTxsEventRequestSchema, "order_by=1").orderBy, OrderBy.ASC);
  rejects(() => fromQuery(GetTxsEventRequestSchema, "order_by=7"), /"order_by": expected one of ORDER_BY_UNSPECIFIED/);
  rejects(() => fromQuery(GetTxsEventRequestSchema, "order_by=desc"), /got "desc"/);
});

test("64-bit integers: any value in range, as decimal text", () => {
  fc.assert(
    fc.property(
      fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
      fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
      (u, i) => {
        const request = fromQuery(GetValidatorSetByHeightRequestSchema, `height=${i}&pagination.limit=${u}`);
        return request.height === i && request.pagination?.limit === u;
      },
    ),
  );
  rejects(
    () => fromQuery(GetValidatorSetByHeightRequestSchema, "height=9223372036854775808"),
    /out of range for a 64-bit integer/,
  );
  rejects(
    () => fromQuery(GetValidatorSetByHeightRequestSchema, "pagination.limit=18446744073709551616"),
    /out of range/,
  );
  rejects(
    () => fromQuery(GetValidatorSetByHeightRequestSchema, "pagination.limit=-1"),
    /expected an unsigned 64-bit integer, got "-1"/,
  );
  rejects(() => fromQuery(GetValidatorSetByHeightRequestSchema, "height=1e3"), /expected a 64-bit integer/);
  rejects(() => fromQuery(GetValidatorSetByHeightRequestSchema, "height="), /got ""/);
});

test("bytes as standard or URL-safe base64, padded or not; a bare + survives form decoding", () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 40 }), (bytes) => {
      const std = Buffer.from(bytes).toString("base64");
      const url = Buffer.from(bytes).toString("base64url");
      for (const text of [std, url, std.replace(/=+$/, "")]) {
        const request = fromQuery(ABCIQueryRequestSchema, `data=${encodeURIComponent(text)}`);
        if (Buffer.compare(Buffer.from(request.data), Buffer.from(bytes)) !== 0) return false;
      }
      const raw = fromQuery(ABCIQueryRequestSchema, `data=${std}`); // "+" unencoded arrives as " "
      return Buffer.compare(Buffer.from(raw.data), Buffer.from(bytes)) === 0;
    }),
  );
  rejects(
    () => fromQuery(ABCIQueryRequestSchema, "data=%21%21"),
    /"data": expected base64 \(standard or URL-safe\), got "!!"/,
  );
  rejects(() => fromQuery(ABCIQueryRequestSchema, "data=abcde"), /expected base64/);
});

test("booleans take upstream's spellings only", () => {
  for (const yes of ["true", "True", "TRUE", "t", "1"])
    assert.equal(fromQuery(ABCIQueryRequestSchema, `prove=${yes}`).prove, true);
  for (const no of ["false", "f", "0"]) assert.equal(fromQuery(ABCIQueryRequestSchema, `prove=${no}`).prove, false);
  rejects(() => fromQuery(ABCIQueryRequestSchema, "prove=yes"), /"prove": expected true or false, got "yes"/);
});

test("a message field needs its own fields; a scalar has no nested fields", () => {
  rejects(
    () => fromQuery(QueryAllBalancesRequestSchema, "pagination=5"),
    /"pagination" is a chain.base.query.v1beta1.PageRequest message: set its fields one by one, e.g. "pagination.key"/,
  );
  rejects(
    () => fromQuery(QueryAllBalancesRequestSchema, "address.x=1"),
    /"address" is not a message, so it has no field "x"/,
  );
});
