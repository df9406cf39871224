import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parseHostPort, parseListenAddress } from "./listen-address.ts";

describe("parseListenAddress", () => {
  test("tcp and unix addresses", () => {
    assert.deepEqual(parseListenAddress("tcp://localhost:1317"), {
      protocol: "tcp",
      host: "localhost",
      port: 1317,
      address: "tcp://localhost:1317",
    });
    assert.deepEqual(parseListenAddress("tcp://[::1]:0"), {
      protocol: "tcp",
      host: "::1",
      port: 0,
      address: "tcp://[::1]:0",
    });
    assert.deepEqual(parseListenAddress("tcp://:26657"), {
      protocol: "tcp",
      host: "0.0.0.0",
      port: 26657,
      address: "tcp://:26657",
    });
    assert.deepEqual(parseListenAddress("unix:///tmp/app.sock"), {
      protocol: "unix",
      path: "/tmp/app.sock",
      address: "unix:///tmp/app.sock",
    });
  });

  test("a bare host:port needs schemeOptional", () => {
    assert.equal(parseListenAddress("127.0.0.1:26658"), undefined);
    assert.equal(parseListenAddress("127.0.0.1:26658", { schemeOptional: true })?.protocol, "tcp");
  });

  test("malformed addresses", () => {
    for (const bad of [
      "",
      "localhost:1317",
      "http://localhost:1317",
      "tcp://localhost",
      "tcp://localhost:port",
      "tcp://localhost:65536",
      "tcp://::1:80",
      "unix://",
      "kvstore",
    ]) {
      assert.equal(parseListenAddress(bad), undefined, bad);
    }
  });
});

describe("parseHostPort", () => {
  test("grpc.address forms", () => {
    assert.deepEqual(parseHostPort("localhost:9090"), { host: "localhost", port: 9090 });
    assert.deepEqual(parseHostPort("[::]:9090"), { host: "::", port: 9090 });
    assert.equal(parseHostPort("tcp://localhost:9090"), undefined);
    assert.equal(parseHostPort("localhost"), undefined);
    assert.equal(parseHostPort("localhost:-1"), undefined);
  });
});
