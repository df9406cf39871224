// One bench file in a process of its own, started by bench/run.ts for each file: `node bench/run-file.ts <file>
// <rows.json>` imports bench/<file>, runs it, stamps its rows with the load average and writes them to <rows.json>.
// Its own process so that no file's figures carry another's leftovers: a process grown to ~2 GiB by the big-state
// bench took ~70 ms longer to start every child (fork copies its page tables), which the CLI start-up figures then
// counted, and a heap or JIT state left by one file was the next one's too.
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { type BenchRun, withLoad } from "./harness.ts";

const [file, out] = process.argv.slice(2);
if (file === undefined || out === undefined)
  throw new Error("usage: node bench/run-file.ts <file.bench.ts> <rows.json>");
const here = dirname(fileURLToPath(import.meta.url));
try {
  const mod = (await import(pathToFileURL(join(here, file)).href)) as { run: BenchRun };
  const rows = await withLoad(mod.run);
  // JSON has no NaN (a skipped row's figures): written as strings, read back as numbers by run.ts.
  writeFileSync(
    out,
    JSON.stringify({ rows }, (_key, value) => (Number.isNaN(value) ? "NaN" : value)),
  );
} catch (err) {
  // run.ts prints the row "failed to run: <message>", as it did when the files ran in one process.
  writeFileSync(out, JSON.stringify({ error: (err as Error).message }));
}
// A bench that left a timer or a socket behind must not keep the whole run waiting.
process.exit(0);
