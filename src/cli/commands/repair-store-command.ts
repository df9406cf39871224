// `chaind repair-store <dir>`: LevelDB's repair of one store directory of a stopped node (data/application.db or
// data/blocks.db), for a store the node refuses to open because its CURRENT file is lost or its MANIFEST is
// damaged. Thin: src/store/level-repair.ts does the work.
import { resolve } from "node:path";
import { Command } from "commander";
import { repairLevelStore } from "../../store/level-repair.ts";
import type { CliIo } from "../io.ts";

/** The `repair-store` command. */
export function repairStoreCommand(io: CliIo): Command {
  return new Command("repair-store")
    .description(
      "Run LevelDB's repair on a stopped node's store directory (e.g. <home>/data/application.db) whose CURRENT file is missing or whose MANIFEST is damaged; keep a copy of the directory first",
    )
    .argument("<dir>", "the store's directory, e.g. <home>/data/application.db or <home>/data/blocks.db")
    .action(async (dir: string) => {
      const path = resolve(dir);
      const { tables, lost } = await repairLevelStore(path);
      io.stdout.write(
        `repaired ${path}: ${tables} table files in the store${lost > 0 ? `; ${lost} files LevelDB could not use are in ${path}/lost` : ""}; start the node to verify it\n`,
      );
    });
}
