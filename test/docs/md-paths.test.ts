// Every repository path a tracked Markdown file names in backticks exists (the rule is md-paths.ts's header): a
// moved or renamed file cannot leave its old name in the docs. The rule itself is tested on made-up text and a
// made-up repository, so a checker that finds nothing cannot pass for docs that are right.
import assert from "node:assert/strict";
import { resolve } from "node:path";
import { describe, it } from "node:test";
import { inlineCode, isMissing, missingPaths, pathCandidate, type RepositoryView } from "./md-paths.ts";

const ROOT = resolve(import.meta.dirname, "..", "..");

describe("the repository's Markdown", () => {
  it("names only repository paths that exist", () => {
    const missing = missingPaths(ROOT).map((p) => `${p.file}:${p.line} \`${p.path}\``);
    assert.deepEqual(missing, [], `stale paths in the docs:\n${missing.join("\n")}`);
  });
});

describe("the rule", () => {
  it("reads inline code outside fenced blocks, with line numbers", () => {
    const text = "see `src/a.ts` and `b`\n```sh\n`src/fenced.ts`\n```\nthen ``a `src/x.ts` b`` and `docs/C.md`";
    assert.deepEqual(inlineCode(text), [
      { line: 1, text: "src/a.ts" },
      { line: 1, text: "b" },
      { line: 5, text: "docs/C.md" },
    ]);
  });

  it("takes paths and file names, not commands, globs, placeholders, URLs or absolute paths", () => {
    const paths = [
      "src/app/base-app.ts",
      "src/app/",
      "src/app/base-app.ts:42",
      "docs/UPGRADING.md#replay-mode",
      "./dist",
      "app.ts",
      "chaind/runtime",
      "../../docs/BUILD-A-CHAIN.md",
    ].map(pathCandidate);
    assert.deepEqual(paths, [
      "src/app/base-app.ts",
      "src/app/",
      "src/app/base-app.ts",
      "docs/UPGRADING.md",
      undefined,
      "app.ts",
      "chaind/runtime",
      "../../docs/BUILD-A-CHAIN.md",
    ]);
    for (const text of [
      "npm run lint",
      "src/x/*/README.md",
      "src/x/<name>/README.md",
      "https://example.org/a/b",
      "/tmp/gb",
      "~/.chaind/config",
      "--home",
      ".d.ts",
      "v1",
      "x=1/2",
    ]) {
      assert.equal(pathCandidate(text), undefined, text);
    }
  });

  it("checks paths anchored in the repository or in the file's folder, and leaves the others alone", () => {
    const files = ["README.md", "src/app/base-app.ts", "src/x/bank/README.md", "src/x/bank/client/cli.ts"];
    const dirs = new Set(files.flatMap((f) => f.split("/").map((_, i, parts) => parts.slice(0, i + 1).join("/"))));
    const view: RepositoryView = {
      root: "/repo",
      topLevel: new Set(["README.md", "src"]),
      tracked: files,
      exists: (path) => dirs.has(path.replace(/\/$/, "")),
    };
    const bank = "src/x/bank/README.md";
    assert.equal(isMissing(view, "README.md", "src/app/base-app.ts"), false);
    assert.equal(isMissing(view, "README.md", "src/app/"), false);
    assert.equal(isMissing(view, "README.md", "src/app/old-app.ts"), true);
    assert.equal(isMissing(view, bank, "client/cli.ts"), false);
    assert.equal(isMissing(view, bank, "client/old.ts"), true);
    assert.equal(isMissing(view, bank, "../../../README.md"), false);
    assert.equal(isMissing(view, bank, "../../../GONE.md"), true);
    // Bare or partial source names: some tracked file must end with them.
    assert.equal(isMissing(view, "README.md", "base-app.ts"), false);
    assert.equal(isMissing(view, "README.md", "app/base-app.ts"), false);
    assert.equal(isMissing(view, "README.md", "renamed-app.ts"), true);
    // A node home's files, package specifiers: not repository paths.
    assert.equal(isMissing(view, "README.md", "data/upgrade-info.json"), undefined);
    assert.equal(isMissing(view, "README.md", "config.toml"), undefined);
    assert.equal(isMissing(view, "README.md", "chaind/runtime"), undefined);
  });
});
