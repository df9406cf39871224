// The CLIs of the standard modules (the set every release runs, build-app.ts) and a chain's full list: the standard
// ones, then the chain's own (ChainManifest.moduleClis), one of which may replace a standard one by name. This is
// what `query` and `tx` list and what the CLI's type registry holds (src/cli/commands/client-commands.ts).
import type { ModuleCliRef } from "../app/module-cli.ts";
import { authCli } from "../x/auth/client/cli-ref.ts";
import { bankCli } from "../x/bank/client/cli-ref.ts";
import { govCli } from "../x/gov/client/cli-ref.ts";
import { stakingCli } from "../x/staking/client/cli-ref.ts";
import { upgradeCli } from "../x/upgrade/client/cli-ref.ts";
import type { ChainManifest } from "./release.ts";

/** The standard modules' CLIs, in the order `query` and `tx` list them. */
export const STANDARD_MODULE_CLIS: readonly ModuleCliRef[] = [authCli, bankCli, govCli, stakingCli, upgradeCli];

/**
 * The module CLIs of `chain`: the standard ones (a chain's own of the same name replaces one in place), then the
 * chain's own. Two of the chain's own with one name are refused.
 */
export function chainModuleClis(chain: Pick<ChainManifest, "name" | "moduleClis">): readonly ModuleCliRef[] {
  const own = chain.moduleClis ?? [];
  const names = new Set<string>();
  for (const cli of own) {
    if (names.has(cli.name)) throw new Error(`chain "${chain.name}": module CLI "${cli.name}" is listed twice`);
    names.add(cli.name);
  }
  const standard = STANDARD_MODULE_CLIS.map((cli) => own.find((o) => o.name === cli.name) ?? cli);
  return [...standard, ...own.filter((o) => !STANDARD_MODULE_CLIS.some((cli) => cli.name === o.name))];
}
