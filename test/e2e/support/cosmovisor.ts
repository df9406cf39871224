// The real cosmovisor for the end-to-end tests: installed by .ci/install-tools into $GOBIN (~/go/bin by default).
import { accessSync, constants } from "node:fs";
import { homedir } from "node:os";
import { delimiter, join } from "node:path";

/** The cosmovisor executable on PATH or in ~/go/bin, or undefined when it is not installed. */
export function cosmovisorBinary(): string | undefined {
  const dirs = [...(process.env.PATH ?? "").split(delimiter), process.env.GOBIN ?? "", join(homedir(), "go", "bin")];
  for (const dir of dirs) {
    if (dir === "") continue;
    const candidate = join(dir, "cosmovisor");
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}
