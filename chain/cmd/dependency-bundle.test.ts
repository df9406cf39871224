// The bundled dependencies must stand for the packages exactly (the same exported names) and be built only where
// no one else can write. Each test points the cache at a temporary TMPDIR of its own.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import { bundledDependencies, lazyDependencyBundle } from "./dependency-bundle.ts";
import { WKT, wktFaceKey } from "./lazy-wkt.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), "dependency-bundle-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** Runs `body` with os.tmpdir() answering `dir`. */
function withTmpdir<T>(dir: string, body: () => T): T {
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = dir;
  try {
    return body();
  } finally {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
  }
}

test("each bundled name exports what the package exports, and a second call reuses the bundle", async () => {
  const dir = join(scratch, "fresh");
  mkdirSync(dir);
  const bundled = withTmpdir(dir, () => bundledDependencies(ROOT));
  assert.ok(bundled !== undefined, "the bundle was built");
  for (const [name, url] of bundled) {
    if (name.startsWith(`${WKT}#`)) continue; // the one-name faces: next test
    const [fromBundle, fromPackage] = await Promise.all([import(url), import(name)]);
    assert.deepEqual(Object.keys(fromBundle).sort(), Object.keys(fromPackage).sort(), name);
  }
  const cacheRoot = join(dir, `chaind-source-deps-${process.getuid?.()}`);
  const built = readdirSync(cacheRoot);
  assert.equal(built.length, 1, "one bundle, no partial directory left");
  assert.deepEqual(
    withTmpdir(dir, () => bundledDependencies(ROOT)),
    bundled,
  );
  assert.deepEqual(readdirSync(cacheRoot), built);
});

test("each WKT file descriptor has a face of its own, exporting that one name, the same object as the whole face's", async () => {
  const bundled = withTmpdir(join(scratch, "fresh"), () => bundledDependencies(ROOT));
  assert.ok(bundled !== undefined);
  const whole: Record<string, unknown> = await import(bundled.get(WKT) as string);
  const names = Object.keys(whole).filter((name) => name.startsWith("file_google_protobuf_"));
  assert.ok(names.includes("file_google_protobuf_descriptor"));
  for (const name of names) {
    const url: string | undefined = bundled.get(wktFaceKey(name));
    assert.ok(url !== undefined, name);
    const face: Record<string, unknown> = await import(url);
    assert.deepEqual(Object.keys(face), [name]);
    assert.equal(face[name], whole[name], name);
  }
});

test("a generated file importing one WKT file descriptor is given its face; any other importer the whole face", () => {
  const dir = join(scratch, "importers");
  mkdirSync(dir);
  const bundled = withTmpdir(join(scratch, "fresh"), () => bundledDependencies(ROOT));
  const bundle = lazyDependencyBundle(ROOT);
  const urlFor = (specifier: string, parentUrl: string) =>
    withTmpdir(join(scratch, "fresh"), () => bundle.urlFor(specifier, parentUrl));
  const importer = (file: string, text: string): string => {
    writeFileSync(join(dir, file), text);
    return pathToFileURL(join(dir, file)).href;
  };
  const one = 'import { file_google_protobuf_descriptor } from "@bufbuild/protobuf/wkt";\n';
  assert.equal(urlFor(WKT, importer("one_pb.js", one)), bundled?.get(wktFaceKey("file_google_protobuf_descriptor")));
  const two = 'import { file_google_protobuf_any, file_google_protobuf_timestamp } from "@bufbuild/protobuf/wkt";\n';
  assert.equal(urlFor(WKT, importer("two_pb.js", two)), bundled?.get(WKT));
  assert.equal(urlFor(WKT, importer("not-generated.js", one)), bundled?.get(WKT));
  assert.equal(urlFor(WKT, pathToFileURL(join(dir, "gone_pb.js")).href), bundled?.get(WKT));
  assert.equal(urlFor("commander", importer("any.ts", "")), bundled?.get("commander"));
});

test("every import of a bundled package in the sources names one of the bundle's entries", () => {
  const bundled = withTmpdir(join(scratch, "fresh"), () => bundledDependencies(ROOT));
  assert.ok(bundled !== undefined);
  const packages = ["@bufbuild/protobuf", "commander", "smol-toml"];
  const imported = new Set<string>();
  for (const folder of ["src", "chain"]) {
    for (const file of readdirSync(join(ROOT, folder), { recursive: true, encoding: "utf8" })) {
      if (!/\.(ts|js|mjs)$/.test(file)) continue;
      for (const match of readFileSync(join(ROOT, folder, file), "utf8").matchAll(/from\s+"([^"]+)"/g)) {
        const name = match[1] as string;
        if (packages.some((pkg) => name === pkg || name.startsWith(`${pkg}/`))) imported.add(name);
      }
    }
  }
  assert.ok(imported.has("@bufbuild/protobuf"), "the scan found the sources' imports");
  for (const name of imported) assert.ok(bundled.has(name), `${name} is imported but not bundled`);
});

test("a bundle missing a file is not used, and is removed so the next start rebuilds it", () => {
  const dir = join(scratch, "aged");
  mkdirSync(dir);
  const bundled = withTmpdir(dir, () => bundledDependencies(ROOT));
  assert.ok(bundled !== undefined);
  const cacheRoot = join(dir, `chaind-source-deps-${process.getuid?.()}`);
  const [key] = readdirSync(cacheRoot);
  unlinkSync(join(cacheRoot, key as string, "dependencies.cjs"));
  assert.equal(
    withTmpdir(dir, () => bundledDependencies(ROOT)),
    undefined,
  );
  assert.deepEqual(readdirSync(cacheRoot), []);
  assert.deepEqual(
    withTmpdir(dir, () => bundledDependencies(ROOT)),
    bundled,
  );
});

test("the first process to load the bundle leaves its V8 code cache, which the next uses; a damaged one is replaced", () => {
  const bundled = withTmpdir(join(scratch, "fresh"), () => bundledDependencies(ROOT));
  const url = bundled?.get("@bufbuild/protobuf");
  assert.ok(url !== undefined);
  const cache = join(fileURLToPath(new URL(".", url)), "dependencies.cjs.v8cache");
  const load = (): string =>
    execFileSync(process.execPath, [
      "--input-type=module",
      "-e",
      `import { create } from ${JSON.stringify(url)};
      import { TimestampSchema } from ${JSON.stringify(bundled?.get("@bufbuild/protobuf/wkt"))};
      process.stdout.write(typeof create(TimestampSchema).seconds);`,
    ]).toString();
  rmSync(cache, { force: true });
  assert.equal(load(), "bigint");
  const written = statSync(cache);
  assert.ok(written.size > 0, "the cache was written as the process exited");
  assert.equal(load(), "bigint");
  assert.equal(statSync(cache).mtimeMs, written.mtimeMs, "an accepted cache is not written again");
  writeFileSync(cache, "not a code cache");
  assert.equal(load(), "bigint");
  assert.ok(statSync(cache).size > 100, "a refused cache is replaced");
});

test("a cache directory others can write to is not used", () => {
  const dir = join(scratch, "shared");
  const cacheRoot = join(dir, `chaind-source-deps-${process.getuid?.()}`);
  mkdirSync(cacheRoot, { recursive: true });
  chmodSync(cacheRoot, 0o777);
  assert.equal(
    withTmpdir(dir, () => bundledDependencies(ROOT)),
    undefined,
  );
  assert.deepEqual(readdirSync(cacheRoot), []);
});

test("a project without the packages gets no bundle (the CLI loads node_modules as before)", () => {
  const dir = join(scratch, "empty-project");
  mkdirSync(dir);
  assert.equal(
    withTmpdir(dir, () => bundledDependencies(dir)),
    undefined,
  );
});
