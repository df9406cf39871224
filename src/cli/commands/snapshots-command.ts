// `chaind snapshots list|export|dump|load|restore|delete` (upstream's snapshots tree). Thin: the
// work is in src/node/snapshot-home.ts; this parses arguments and prints.
import { Command, InvalidArgumentError } from "commander";
import { currentBinaryName } from "../../config/home.ts";
import {
  deleteHomeSnapshot,
  dumpHomeSnapshot,
  exportHomeSnapshot,
  listHomeSnapshots,
  loadHomeSnapshot,
  restoreHomeSnapshot,
} from "../../node/snapshot-home.ts";
import { describeSnapshot } from "../../snapshots/index.ts";
import type { CliIo } from "../io.ts";
import { globalFlags } from "./cli-support.ts";

/** The `snapshots` command tree. */
export function snapshotsCommand(io: CliIo): Command {
  const snapshots = new Command("snapshots").description(
    "Manage local state-sync snapshots (data/snapshots): list, export, dump, load, restore, delete",
  );
  snapshots
    .command("list")
    .description("List local snapshots, newest first")
    .action(
      run(async (_flags: unknown, command: Command) => {
        const { home, output } = globalFlags(command);
        const all = await listHomeSnapshots(home);
        if (output === "json") io.stdout.write(`${JSON.stringify(all.map(describeSnapshot))}\n`);
        else for (const s of all) io.stdout.write(`height: ${s.height} format: ${s.format} chunks: ${s.chunks}\n`);
      }),
    );
  snapshots
    .command("export")
    .description("Take a snapshot of this (stopped) node's state at a committed height")
    .option("--height <h>", "the height to snapshot (default, or 0: the latest committed height)", parseExportHeight)
    .action(
      run(async (flags: { height?: bigint }, command: Command) => {
        const { home } = globalFlags(command);
        // Upstream's flag defaults to 0, meaning the latest height; `--height 0` keeps that meaning here.
        // Upstream's first line names the height, the latest one resolved when none was asked.
        const info = await exportHomeSnapshot({
          home,
          height: flags.height === 0n ? undefined : flags.height,
          onHeight: (height) => io.stdout.write(`Exporting snapshot for height ${height}\n`),
        });
        io.stdout.write(`Snapshot created at height ${info.height}, format ${info.format}, chunks ${info.chunks}\n`);
      }),
    );
  snapshots
    .command("dump")
    .description("Write a local snapshot to one .tar.gz archive (default <height>-<format>.tar.gz here)")
    .argument("<height>", "the snapshot's height", parseHeight)
    .argument("<format>", "the snapshot's format", parseFormat)
    .option("--out <file>", "the archive to write")
    .action(
      run(async (height: bigint, format: number, flags: { out?: string }, command: Command) => {
        const { home } = globalFlags(command);
        const { archive } = await dumpHomeSnapshot({ home, height, format, out: flags.out });
        io.stdout.write(`${archive}\n`);
      }),
    );
  snapshots
    .command("load")
    .description("Add a snapshot archive (from dump) to the local snapshots, checking every chunk")
    .argument("<archive>", `the .tar.gz written by \`${currentBinaryName()} snapshots dump\``)
    .action(
      run(async (archive: string, _flags: unknown, command: Command) => {
        const { home } = globalFlags(command);
        const info = await loadHomeSnapshot({ home, archive });
        io.stdout.write(`Snapshot loaded at height ${info.height}, format ${info.format}, chunks ${info.chunks}\n`);
      }),
    );
  snapshots
    .command("restore")
    .description("Rebuild this (fresh) home's application state from a local snapshot")
    .argument("<height>", "the snapshot's height", parseHeight)
    .argument("<format>", "the snapshot's format", parseFormat)
    .option(
      "--trusted-app-hash <hex>",
      "the app hash the state at <height> must have (app_hash of header <height>+1, from a node you trust)",
      parseAppHash,
    )
    .action(
      run(async (height: bigint, format: number, flags: { trustedAppHash?: Uint8Array }, command: Command) => {
        const { home } = globalFlags(command);
        const result = await restoreHomeSnapshot({ home, height, format, trustedAppHash: flags.trustedAppHash });
        const hash = Buffer.from(result.appHash).toString("hex").toUpperCase();
        io.stdout.write(`Restored snapshot at height ${height}, format ${format}; app hash ${hash}\n`);
        if (result.engineBootstrapped)
          io.stdout.write(
            `The block store starts at height ${height}; \`${currentBinaryName()} start\` continues from ${height + 1n}\n`,
          );
      }),
    );
  snapshots
    .command("delete")
    .description("Delete a local snapshot")
    .argument("<height>", "the snapshot's height", parseHeight)
    .argument("<format>", "the snapshot's format", parseFormat)
    .action(
      run(async (height: bigint, format: number, _flags: unknown, command: Command) => {
        const { home } = globalFlags(command);
        await deleteHomeSnapshot({ home, height, format });
      }),
    );
  return snapshots;
}

/**
 * Runs an action with the command as its last argument. Snapshot, store and block-store errors are
 * UserErrors, so src/cli/report-error.ts prints them as one line; nothing to convert here.
 */
function run<Args extends unknown[]>(action: (...args: Args) => Promise<void>): (...args: Args) => Promise<void> {
  return action;
}

function parseHeight(text: string): bigint {
  if (!/^[0-9]+$/.test(text) || BigInt(text) < 1n) {
    throw new InvalidArgumentError(`expected a positive whole number, got "${text}"`);
  }
  if (BigInt(text) >= 2n ** 64n) throw new InvalidArgumentError(`expected a height below 2^64, got "${text}"`);
  return BigInt(text);
}

/** `export --height`: a height, or 0 for the latest (upstream's default value). */
function parseExportHeight(text: string): bigint {
  return text === "0" ? 0n : parseHeight(text);
}

function parseFormat(text: string): number {
  if (!/^[0-9]+$/.test(text) || Number(text) > 0xffffffff) {
    throw new InvalidArgumentError(`expected a format number (uint32), got "${text}"`);
  }
  return Number(text);
}

function parseAppHash(text: string): Uint8Array {
  if (!/^[0-9a-fA-F]{64}$/.test(text))
    throw new InvalidArgumentError(`expected 64 hex digits (a sha256 app hash), got "${text}"`);
  return new Uint8Array(Buffer.from(text, "hex"));
}
