// The well-known types evaluated one file at a time: the generated files' one-name imports are recognised and
// nothing else is, the runtime's index is parsed only in the shape tsc writes, and the lazy index gives the same
// names in the same order while evaluating a module only when one of its names is read.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { test } from "node:test";
import { narrowedWktImport, withLazyWktIndex, wktIndexModules } from "./lazy-wkt.ts";

test("a generated file's one WKT file descriptor import is recognised; any other form is not", () => {
  const one =
    'import { fileDesc } from "@bufbuild/protobuf/codegenv2";\nimport { file_google_protobuf_descriptor } from "@bufbuild/protobuf/wkt";\n';
  assert.equal(narrowedWktImport(one), "file_google_protobuf_descriptor");
  for (const source of [
    'import { file_google_protobuf_any, file_google_protobuf_timestamp } from "@bufbuild/protobuf/wkt";\n',
    'import { AnySchema } from "@bufbuild/protobuf/wkt";\n',
    'import * as wkt from "@bufbuild/protobuf/wkt";\n',
    `${one}export { anyPack } from "@bufbuild/protobuf/wkt";\n`,
    'import { fileDesc } from "@bufbuild/protobuf/codegenv2";\n',
    "",
  ]) {
    assert.equal(narrowedWktImport(source), undefined, source);
  }
});

test("the installed runtime's WKT index is read as its list of modules; another shape is refused", () => {
  const index = readFileSync(createRequire(import.meta.url).resolve("@bufbuild/protobuf/wkt"), "utf8");
  const modules = wktIndexModules(index);
  assert.ok(modules !== undefined);
  assert.ok(modules.includes("./google/protobuf/descriptor_pb.js"));
  assert.ok(modules.includes("./timestamp.js"));
  assert.equal(wktIndexModules(`${index}\nexports.extra = 1;\n`), undefined);
  assert.equal(wktIndexModules('"use strict";\n'), undefined);
});

/** A bundle in esbuild's CommonJS shape whose index re-exports two modules that count their evaluations. */
const FAKE_BUNDLE = `var evaluated = [];
var require_a = __commonJS({
  "node_modules/x/a.js"(exports2) {
    evaluated.push("a"); exports2.shared = "from a"; exports2.onlyA = {};
  }
});
var require_b = __commonJS({
  "node_modules/x/b.js"(exports2) {
    evaluated.push("b"); exports2.shared = "from b"; exports2.onlyB = {}; exports2.default = "b's default";
  }
});
var require_wkt = __commonJS({
  "node_modules/@bufbuild/protobuf/dist/cjs/wkt/index.js"(exports2) {
    "use strict";
    var __exportStar = exports2 && exports2.__exportStar || function(m, exports3) {
      for (var p in m) if (p !== "default" && !Object.prototype.hasOwnProperty.call(exports3, p)) Object.defineProperty(exports3, p, { enumerable: true, get: function() { return m[p]; } });
    };
    Object.defineProperty(exports2, "__esModule", { value: true });
    __exportStar(require_a(), exports2);
    __exportStar(require_b(), exports2);
  }
});
`;

/** Runs a bundle text with esbuild's __commonJS helper; answers the index's exports and the evaluation log. */
function runBundle(bundle: string): { index: Record<string, unknown>; evaluated: string[] } {
  const helper = `var __commonJS = (cb, mod) => function () { return mod || (0, cb[Object.keys(cb)[0]])((mod = { exports: {} }).exports, mod), mod.exports; };`;
  return new Function(`${helper}\n${bundle}\nreturn { index: require_wkt(), evaluated };`)() as {
    index: Record<string, unknown>;
    evaluated: string[];
  };
}

test("the lazy index has the eager one's names in its order and evaluates a module at the first read of its names", () => {
  const lazy = withLazyWktIndex(FAKE_BUNDLE, [
    ["shared", "onlyA"],
    ["shared", "onlyB", "default"],
  ]);
  assert.ok(lazy !== undefined);
  const eager = runBundle(FAKE_BUNDLE);
  const { index, evaluated } = runBundle(lazy);
  assert.deepEqual(Object.keys(index), Object.keys(eager.index));
  assert.deepEqual(evaluated, [], "nothing evaluated before a name is read");
  const onlyB = index.onlyB;
  assert.deepEqual(evaluated, ["b"]);
  assert.equal(index.onlyB, onlyB, "the module is evaluated once: the same object on every read");
  assert.equal(index.shared, "from a", "the first module exporting a name keeps it, as __exportStar does");
  assert.deepEqual(evaluated, ["b", "a"]);
  assert.equal(index.__esModule, true);
});

test("a bundle whose index is not in the expected shape, or names that do not match it, is left as it is", () => {
  assert.equal(withLazyWktIndex(FAKE_BUNDLE, [["shared"]]), undefined);
  assert.equal(withLazyWktIndex(FAKE_BUNDLE.replace("wkt/index.js", "wkt/other.js"), [["a"], ["b"]]), undefined);
  assert.equal(
    withLazyWktIndex(FAKE_BUNDLE.replace("__exportStar(require_b(), exports2);", "__exportStar(require_b(), {});"), [
      ["shared"],
      ["onlyB"],
    ]),
    undefined,
  );
});
