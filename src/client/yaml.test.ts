import assert from "node:assert/strict";
import { test } from "node:test";
import { toYaml } from "./yaml.ts";

test("renders a plan record as upstream's YAML", () => {
  const plan = { height: "130", info: "", name: "v2", time: "0001-01-01T00:00:00Z", upgraded_client_state: null };
  assert.equal(
    toYaml(plan),
    'height: "130"\ninfo: ""\nname: v2\ntime: "0001-01-01T00:00:00Z"\nupgraded_client_state: null\n',
  );
});

test("renders nested lists of objects and empty containers", () => {
  const value = {
    module_versions: [
      { name: "auth", version: "1" },
      { name: "bank", version: "4" },
    ],
    pagination: {},
    list: [],
  };
  assert.equal(
    toYaml(value, { sortKeys: false }),
    'module_versions:\n- name: auth\n  version: "1"\n- name: bank\n  version: "4"\npagination: {}\nlist: []\n',
  );
});

test("sorts keys at every level unless told to keep the JSON order", () => {
  const value = { b: { d: 1, c: [{ f: 2, e: 3 }] }, a: "x" };
  assert.equal(toYaml(value), "a: x\nb:\n  c:\n  - e: 3\n    f: 2\n  d: 1\n");
  assert.equal(toYaml(value, { sortKeys: false }), "b:\n  d: 1\n  c:\n  - f: 2\n    e: 3\na: x\n");
});

test("renders nested objects with indentation and scalars at the top level", () => {
  assert.equal(toYaml({ a: { b: { c: true } } }), "a:\n  b:\n    c: true\n");
  assert.equal(toYaml("x y"), "x y\n");
  assert.equal(toYaml(null), "null\n");
  assert.equal(toYaml({ k: '{"a":1}' }), "k: '{\"a\":1}'\n");
});
