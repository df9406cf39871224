import assert from "node:assert/strict";
import { test } from "node:test";
import { type LookupAll, listenAddressFor } from "./listen-host.ts";

const ipv6First: LookupAll = async () => [
  { address: "::1", family: 6 },
  { address: "127.0.0.1", family: 4 },
];

test("a name binds its first IPv4 address, as Go's net.Listen does, even when the resolver puts ::1 first", async () => {
  assert.equal(await listenAddressFor("localhost", ipv6First), "127.0.0.1");
});

test("a name with IPv6 addresses only binds the first of them", async () => {
  assert.equal(await listenAddressFor("ip6-only", async () => [{ address: "::1", family: 6 }]), "::1");
});

test("IP literals and the empty host are bound as given, without a lookup", async () => {
  const refuse: LookupAll = async () => assert.fail("no lookup for a literal");
  for (const host of ["127.0.0.1", "0.0.0.0", "::", "::1", ""])
    assert.equal(await listenAddressFor(host, refuse), host);
});

test("a name that does not resolve is left to listen, whose error names it", async () => {
  const failing: LookupAll = async () => {
    throw new Error("getaddrinfo ENOTFOUND");
  };
  assert.equal(await listenAddressFor("no-such-host.invalid", failing), "no-such-host.invalid");
});
