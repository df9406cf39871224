// docs/CONTRACT.md §12 for usage mistakes and for a --node that is not a node, end to end: `chaind` runs as a real
// process and a mistake prints one line on stderr (commander's `error: …`, or `Error: …` for the node), no stack and
// no help after it, and exits non-zero. At the root this once printed the whole root help (~60 lines) after the
// error; `--help`, `help` and no command at all must still print the help.
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { type ChaindResult, killAllChaind, runChaind, tempDir } from "../../test/support/node/chaind.ts";

const STACK_FRAME = /^\s+at /m;

/** stderr without its final line break, split into lines. */
function stderrLines(result: ChaindResult): string[] {
  return result.stderr.replace(/\n$/, "").split("\n");
}

/** The run failed with exactly one line on stderr matching `pattern`, nothing on stdout, no stack and no help. */
function assertOneLine(result: ChaindResult, pattern: RegExp): void {
  assert.notEqual(result.code, 0, `expected a non-zero exit\n${result.stderr}`);
  assert.deepEqual(stderrLines(result).length, 1, `expected one line on stderr:\n${result.stderr}`);
  assert.match(result.stderr, pattern);
  assert.doesNotMatch(result.stderr, STACK_FRAME, `a stack trace was printed\n${result.stderr}`);
  assert.doesNotMatch(result.stderr, /Usage:/, `the help was printed after the error\n${result.stderr}`);
  assert.equal(result.stdout, "");
}

describe("chaind: a usage mistake is one line, at the root as in subcommands", { timeout: 120_000 }, () => {
  const dirs: { remove(): Promise<void> }[] = [];
  let home = "";
  before(async () => {
    const dir = await tempDir("usage-errors-");
    dirs.push(dir);
    home = dir.path;
  });
  after(async () => {
    await killAllChaind();
    for (const dir of dirs) await dir.remove();
  });

  const cases: [string, () => string[], RegExp][] = [
    ["an unknown command", () => ["frobnicate"], /^error: unknown command 'frobnicate'$/m],
    ["an unknown root option", () => ["--bogus"], /^error: unknown option '--bogus'$/m],
    [
      "a bad -o before the command",
      () => ["-o", "yaml", "version"],
      /^error: option '-o, --output <format>' argument 'yaml' is invalid\. Allowed choices are text, json\.$/m,
    ],
    [
      "a bad -o after a subcommand (a root option)",
      () => ["query", "upgrade", "plan", "-o", "yaml", "--home", home],
      /^error: option '-o, --output <format>' argument 'yaml' is invalid\. Allowed choices are text, json\.$/m,
    ],
    [
      "a bad --log_level",
      () => ["--log_level", "loud", "version"],
      /^error: option '--log_level <level>' argument 'loud' is invalid\. Allowed choices are trace, debug, info, warn, error, fatal, or per-module levels such as "x\/upgrade:debug,\*:info"\.$/m,
    ],
    ["an unknown subcommand", () => ["query", "frobnicate"], /^error: unknown command 'frobnicate'$/m],
    ["an unknown subcommand option", () => ["version", "--bogus"], /^error: unknown option '--bogus'$/m],
  ];
  for (const [what, args, pattern] of cases) {
    it(`${what}: one error line, exit 1`, async () => {
      const result = await runChaind(args());
      assertOneLine(result, pattern);
      assert.equal(result.code, 1);
    });
  }

  it("status, parsed before the command tree: a usage mistake is one line too, exit 2", async () => {
    for (const [args, line] of [
      [["status", "@@"], `Error: Unexpected argument '@@'; see "chaind status --help"`],
      [["status", "--nope"], `Error: Unknown option '--nope'; see "chaind status --help"`],
      [["status", "--node", "-1"], `Error: Option '--node' argument is ambiguous; see "chaind status --help"`],
    ] as const) {
      const result = await runChaind([...args, "--home", home]);
      assert.equal(result.code, 2, result.stderr);
      assert.equal(result.stderr, `${line}\n`);
      assert.equal(result.stdout, "");
    }
  });

  it("a mistyped command: the error line and commander's one guess", async () => {
    const result = await runChaind(["qurey"]);
    assert.equal(result.code, 1);
    assert.deepEqual(stderrLines(result), ["error: unknown command 'qurey'", "(Did you mean query?)"]);
  });

  it("--help and help print the root help on stdout and exit 0; no command prints it on stderr and exits 1", async () => {
    for (const args of [["--help"], ["help"]]) {
      const result = await runChaind(args);
      assert.equal(result.code, 0, args.join(" "));
      assert.match(result.stdout, /^Usage: chaind \[options\] \[command\]/, args.join(" "));
      assert.match(result.stdout, /^\s+query\|q\b/m);
      assert.equal(result.stderr, "");
    }
    const bare = await runChaind([]);
    assert.equal(bare.code, 1);
    assert.match(bare.stderr, /^Usage: chaind \[options\] \[command\]/);
    assert.match(bare.stderr, /^\s+query\|q\b/m);
    const sub = await runChaind(["query", "--help"]);
    assert.equal(sub.code, 0);
    assert.match(sub.stdout, /^Usage: chaind query/);
  });
});

describe("chaind: a --node that answers HTML instead of JSON-RPC is one line", { timeout: 120_000 }, () => {
  const PAGE = [
    "<!DOCTYPE HTML>",
    '<html lang="en">',
    "    <head>",
    '        <meta charset="utf-8">',
    "        <title>Error response</title>",
    "    </head>",
    "    <body>",
    "        <h1>Error response</h1>",
    "        <p>Error code: 501</p>",
    "        <p>Message: Unsupported method ('POST').</p>",
    "    </body>",
    "</html>",
    "",
  ].join("\n");
  let server: Server;
  let node = "";
  let home = "";
  let address = "";
  const dirs: { remove(): Promise<void> }[] = [];

  before(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on("end", () => res.writeHead(501, { "content-type": "text/html;charset=utf-8" }).end(PAGE));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    node = `tcp://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const dir = await tempDir("usage-errors-html-");
    dirs.push(dir);
    home = dir.path;
    const added = await runChaind(["keys", "add", "alice", "--home", home, "--keyring-backend", "test", "-o", "json"]);
    assert.equal(added.code, 0, added.stderr);
    address = (JSON.parse(added.stdout) as { address: string }).address;
  });
  after(async () => {
    await killAllChaind();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    for (const dir of dirs) await dir.remove();
  });

  /** One `Error:` line naming the method, the status and content type, and the start of the page (whitespace collapsed). */
  function assertHtmlLine(result: ChaindResult, method: string): void {
    const port = node.split(":").at(-1);
    assertOneLine(
      result,
      new RegExp(
        `^Error: the node at http://127\\.0\\.0\\.1:${port} answered ${method} with something that is not JSON-RPC ` +
          `\\(HTTP 501, text/html;charset=utf-8\\): <!DOCTYPE HTML> <html lang="en"> <head> <meta charset="utf-8"> <title>`,
      ),
    );
    const quoted = (stderrLines(result)[0] as string).split("): ").slice(1).join("): ");
    assert.ok(quoted.endsWith("…"), `the page is cut short:\n${result.stderr}`);
    assert.equal(Array.from(quoted).length, 81, `80 characters of the page, then "…":\n${result.stderr}`);
  }

  it("query upgrade plan", async () => {
    assertHtmlLine(await runChaind(["query", "upgrade", "plan", "--node", node, "--home", home]), "abci_query");
  });

  it("tx bank send (the account lookup, and the broadcast itself)", async () => {
    const send = ["tx", "bank", "send", "alice", address, "1stake", "--node", node, "--home", home];
    const flags = ["--keyring-backend", "test", "--chain-id", "html-1", "--yes"];
    assertHtmlLine(await runChaind([...send, ...flags]), "abci_query");
    // With the account number and sequence given nothing is queried: the broadcast (sent through fetch) meets the page.
    const known = ["--account-number", "0", "--sequence", "0", "--gas", "100000"];
    assertHtmlLine(await runChaind([...send, ...flags, ...known]), "broadcast_tx_sync");
  });
});
