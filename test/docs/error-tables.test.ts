// Every registered error (codespace `sdk` and each module's) has its row in the error table of its README, with the
// registered text, and no table row names an error that is not registered (the rule: error-tables.ts's header).
// The comparison itself is tested on made-up errors and READMEs, so it cannot pass by finding nothing.
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, it } from "node:test";
import { GrpcCode, RegisteredError } from "../../src/app/errors.ts";
import { errorRows, loadRegistry, readmeOf, rowFor, undocumentedErrors } from "./error-tables.ts";

const ROOT = resolve(import.meta.dirname, "..", "..");

describe("the error registry and the READMEs", () => {
  it("every registered error is in its README's table and every row is registered", async () => {
    const errors = await loadRegistry(ROOT);
    const codespaces = new Set(errors.map((e) => e.codespace));
    for (const codespace of ["sdk", "bank", "gov", "staking", "upgrade"]) {
      assert.ok(codespaces.has(codespace), `codespace ${codespace} is loaded`);
    }
    const problems = undocumentedErrors(ROOT, errors);
    assert.deepEqual(problems, [], problems.join("\n"));
  });
});

describe("the comparison", () => {
  it("finds a missing row, a row with other text and a row of no registered error", async () => {
    const root = await mkdtemp(join(tmpdir(), "error-tables-"));
    try {
      await mkdir(join(root, "src", "app"), { recursive: true });
      await mkdir(join(root, "src", "x", "demo"), { recursive: true });
      // Built directly, not registered: the process-wide registry stays as the node has it.
      const errors = [
        new RegisteredError("sdk", 2, "tx parse error", GrpcCode.InvalidArgument),
        new RegisteredError("demo", 2, "bad thing", GrpcCode.NotFound),
        new RegisteredError("demo", 3, "other thing", GrpcCode.NotFound),
      ];
      assert.equal(readmeOf("demo"), "src/x/demo/README.md");
      assert.equal(rowFor(errors[1] as RegisteredError), "| demo 2 | `bad thing` | NotFound |");
      await writeFile(join(root, "src", "app", "README.md"), "| sdk 2 | `tx parse error` | InvalidArgument |\n");
      await writeFile(
        join(root, "src", "x", "demo", "README.md"),
        "| codespace code | error |\n|---|---|\n| demo 2 | `bad things` | NotFound |\n| demo 9 | `gone` | x |\n",
      );
      assert.deepEqual(errorRows("| demo 2 | `bad things` | NotFound |\n| name | `x` |"), [
        { codespace: "demo", code: 2, description: "bad things", line: 1 },
      ]);
      assert.deepEqual(undocumentedErrors(root, errors), [
        "src/x/demo/README.md has no row | demo 2 | `bad thing` | NotFound |",
        "src/x/demo/README.md has no row | demo 3 | `other thing` | NotFound |",
        'src/x/demo/README.md:3 gives demo 2 as "bad things", registered as "bad thing"',
        "src/x/demo/README.md:4 documents demo 9, which is not registered",
      ]);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
