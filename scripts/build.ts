// Compiles the TypeScript sources to dist/ with tsc and copies the generated protobuf-es
// JavaScript (src/gen holds .js + .d.ts pairs, which tsc does not emit) beside it.
import { execFileSync } from "node:child_process";
import { cpSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
rmSync(join(root, "dist"), { recursive: true, force: true });
execFileSync(join(root, "node_modules", ".bin", "tsc"), ["-p", "tsconfig.build.json"], { cwd: root, stdio: "inherit" });
cpSync(join(root, "src", "gen"), join(root, "dist", "src", "gen"), { recursive: true });
