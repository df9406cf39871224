// docs/CONTRACT.md §12 for chainvisor's usage mistakes: the real CLI as a child process prints commander's one
// `error: …` line, no stack and no help after it (it once printed the whole help), and exits 1; `--help` and
// `help` still print the help on stdout, and no command at all prints it on stderr (exit 1).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { runVisor } from "../../test/support/visor/fixtures.ts";

// No DAEMON_* variables: a usage error is reported before any configuration is read.
const ENV = { PATH: process.env.PATH ?? "/usr/bin:/bin" };

describe("chainvisor: a usage mistake is one line", () => {
  const cases: [string[], RegExp][] = [
    [["frobnicate"], /^error: unknown command 'frobnicate'$/],
    [["--bogus"], /^error: unknown option '--bogus'$/],
    [["status", "-o", "yaml"], /^error: option '-o, --output <format>' argument 'yaml' is invalid\. Allowed choices/],
    [["status", "--bogus"], /^error: unknown option '--bogus'$/],
    [["add-upgrade"], /^error: missing required argument 'name'$/],
  ];
  for (const [args, pattern] of cases) {
    it(`chainvisor ${args.join(" ")}`, async () => {
      const result = await runVisor(args, ENV);
      assert.equal(result.code, 1, result.stderr);
      const lines = result.stderr.replace(/\n$/, "").split("\n");
      assert.equal(lines.length, 1, `expected one line on stderr:\n${result.stderr}`);
      assert.match(lines[0] as string, pattern);
      assert.doesNotMatch(result.stderr, /^\s+at /m);
      assert.equal(result.stdout, "");
    });
  }

  it("--help and help print the help (exit 0); no command prints it on stderr (exit 1)", async () => {
    for (const args of [["--help"], ["help"]]) {
      const result = await runVisor(args, ENV);
      assert.equal(result.code, 0, args.join(" "));
      assert.match(result.stdout, /^Usage: chainvisor \[options\] \[command\]/);
      assert.match(result.stdout, /^\s+prepare-upgrade\b/m);
    }
    const bare = await runVisor([], ENV);
    assert.equal(bare.code, 1);
    assert.match(bare.stderr, /^Usage: chainvisor \[options\] \[command\]/);
  });
});
