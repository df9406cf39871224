// Regenerates src/gen from proto/ with buf and protoc-gen-es (both ship inside npm packages,
// so no network is needed). The output is committed; CI regenerates and fails on any drift.
import { execFileSync } from "node:child_process";
import { rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const bin = join(root, "node_modules", ".bin");

rmSync(join(root, "src", "gen"), { recursive: true, force: true });
execFileSync(join(bin, "buf"), ["generate"], {
  cwd: root,
  stdio: "inherit",
  env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ""}` },
});
