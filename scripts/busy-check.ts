// The busy-machine self-check: runs the end-to-end tests (test/e2e and examples/, or the folders and files given)
// with two CPU-burning loops beside them, so a test that depends on the machine's speed (a fixed
// sleep, a short deadline, a governance period a slow vote can miss) fails here and not on someone's
// laptop. Not part of CI's `.ci/run` (it roughly doubles the e2e time); run it before merging
// changes to tests: `npm run test:busy` (or `npm run test:busy -- test/e2e/node-start.test.ts`).
import { type ChildProcess, spawn } from "node:child_process";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(fileURLToPath(new URL(".", import.meta.url)), "..");
const targets = process.argv.length > 2 ? process.argv.slice(2) : [join("test", "e2e"), "examples"];
const BURNERS = 2;

// Each burner spins in its own process, so the operating system schedules it like any other work.
const burners: ChildProcess[] = [];
for (let i = 0; i < BURNERS; i++) {
  burners.push(spawn(process.execPath, ["-e", "for (;;) Math.sqrt(Math.random());"], { stdio: "ignore" }));
}
const stopBurners = () => {
  for (const burner of burners) burner.kill("SIGKILL");
};
process.on("exit", stopBurners);
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    stopBurners();
    process.exit(130);
  });
}

console.log(
  `busy-check: ${BURNERS} CPU-burning loops beside ${targets.map((t) => relative(root, join(root, t))).join(", ")}`,
);
const started = Date.now();
const tests = spawn(process.execPath, [join(root, "scripts", "test.ts"), ...targets], { cwd: root, stdio: "inherit" });
tests.on("close", (code, signal) => {
  stopBurners();
  const minutes = ((Date.now() - started) / 60_000).toFixed(1);
  console.log(`busy-check: ${code === 0 ? "passed" : "FAILED"} in ${minutes} min`);
  process.exit(code ?? (signal === null ? 1 : 128));
});
