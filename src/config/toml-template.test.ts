import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import { parse } from "smol-toml";
import { renderAppToml } from "./app-toml-template.ts";
import { renderConfigToml } from "./config-toml-template.ts";
import { formatTomlValue, setTomlValues } from "./toml-template.ts";

describe("formatTomlValue", () => {
  test("any string survives a round trip through TOML", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), fc.array(fc.string()), (text, list) => {
        const parsed = parse(`a = ${formatTomlValue(text)}\nb = ${formatTomlValue(list)}\n`);
        assert.equal(parsed.a, text);
        assert.deepEqual(parsed.b, list);
      }),
    );
  });

  test("integers only", () => {
    assert.equal(formatTomlValue(10), "10");
    assert.equal(formatTomlValue(18446744073709551615n), "18446744073709551615");
    assert.throws(() => formatTomlValue(1.5), RangeError);
  });
});

describe("setTomlValues", () => {
  test("rewrites keys in place and keeps every comment", () => {
    const before = renderConfigToml({ moniker: "a" });
    const after = setTomlValues(before, { moniker: "b", "rpc.laddr": "tcp://127.0.0.1:0", "p2p.pex": false });
    const beforeLines = before.split("\n");
    const afterLines = after.split("\n");
    assert.equal(afterLines.length, beforeLines.length);
    const changed = afterLines.filter((line, i) => line !== beforeLines[i]);
    assert.deepEqual(changed, ['moniker = "b"', 'laddr = "tcp://127.0.0.1:0"', "pex = false"]);
    const parsed = parse(after) as Record<string, Record<string, unknown>>;
    assert.equal(parsed.moniker, "b");
    assert.equal(parsed.rpc.laddr, "tcp://127.0.0.1:0");
    assert.equal(parsed.p2p.laddr, "tcp://0.0.0.0:26656", "the same key name in another section is untouched");
  });

  test("adds missing keys to their section and missing sections at the end", () => {
    const text = '# top\nmoniker = "a"\n\n[rpc]\n# the address\nladdr = "tcp://x:1"\n\n[p2p]\npex = true\n';
    const after = setTomlValues(text, {
      proxy_app: "tcp://127.0.0.1:1",
      "rpc.unsafe": true,
      "tx_index.indexer": "null",
    });
    assert.equal(
      after,
      '# top\nmoniker = "a"\nproxy_app = "tcp://127.0.0.1:1"\n\n[rpc]\n# the address\nladdr = "tcp://x:1"\nunsafe = true\n\n[p2p]\npex = true\n\n[tx_index]\nindexer = "null"\n',
    );
  });

  test("a top-level key goes before the first section when there is none at the top", () => {
    const after = setTomlValues("[api]\nenable = true\n", { "minimum-gas-prices": "0stake" });
    assert.equal(after, 'minimum-gas-prices = "0stake"\n[api]\nenable = true\n');
    assert.equal((parse(after) as Record<string, unknown>)["minimum-gas-prices"], "0stake");
  });

  test("refuses to rewrite a multi-line value", () => {
    const text = 'cors_allowed_origins = [\n  "a",\n]\n';
    assert.throws(
      () => setTomlValues(text, { cors_allowed_origins: [] }, "f.toml"),
      /cors_allowed_origins: cannot rewrite/,
    );
  });

  test("works on app.toml too", () => {
    const after = setTomlValues(renderAppToml(), { "api.address": "tcp://127.0.0.1:0", "grpc.address": "127.0.0.1:0" });
    const parsed = parse(after) as Record<string, Record<string, unknown>>;
    assert.equal(parsed.api.address, "tcp://127.0.0.1:0");
    assert.equal(parsed.grpc.address, "127.0.0.1:0");
  });
});
